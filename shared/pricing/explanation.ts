// The short explanation: how far the price moved from its base, and the driver that did most of it, in a seller's words.
import type { Driver } from './model.ts';
import { baseNames, points } from './reason-stack.ts';

const driverPhrases: Readonly<Record<string, string>> = {
  customer_history: "the customer's own history",
  quantity: 'the deal size',
  win_model: 'the win model',
  stock: 'stock levels',
  min_margin: 'the minimum margin',
  floor: 'the floor price',
  map: 'the minimum advertised price',
  ceiling: 'the ceiling price',
  max_change: 'the limit on change from the current price',
  keep: 'keeping the current price',
};

/** The main driver is the largest move in the direction the price went; with no net move, the largest either way. */
function mainDriver(drivers: readonly Driver[], totalBps: number): Driver | undefined {
  let main: Driver | undefined;
  for (const driver of drivers) {
    const size = Math.abs(driver.points);
    if (totalBps !== 0 && Math.sign(driver.points) !== Math.sign(totalBps)) continue;
    if (!main || size > Math.abs(main.points)) main = driver;
  }
  return main;
}

export function shortExplanation(drivers: readonly Driver[], totalBps: number, depth: number): string {
  const main = mainDriver(drivers, totalBps);
  const baseName = baseNames[depth];
  if (!main) return `Priced at the ${baseName}; no adjustments.`;
  const phrase = driverPhrases[main.param] ?? main.param;
  if (totalBps === 0) return `Priced at the ${baseName}; its adjustments cancel out (the largest: ${phrase}).`;
  return `Priced ${points(Math.abs(totalBps))} points ${totalBps > 0 ? 'above' : 'below'} the ${baseName}, mainly for ${phrase}.`;
}
