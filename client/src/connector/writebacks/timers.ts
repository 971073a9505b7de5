// The write-back worker's real clock and waits, used unless a test hands it its own.
import type { Timers } from './contract.ts';

export const realTimers: Timers = {
  now: () => performance.now(),
  every(ms, fn) {
    const handle = setInterval(fn, ms);
    return () => clearInterval(handle);
  },
  sleep(ms) {
    let wake = () => {};
    const done = new Promise<void>((resolve) => {
      const handle = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(handle);
        resolve();
      };
    });
    return { done, wake };
  },
};
