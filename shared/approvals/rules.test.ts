// Unit tests of the rules beyond the bounds: the move from the current price, when it needs confirming or a second approver, and who approved.
import { describe, expect, it } from 'vitest';
import { defaultPricingSettings } from '#shared/pricing/settings.ts';
import { thrownApiError } from '#test/support/thrown.ts';
import {
  approvalThresholds,
  approverOf,
  ConfirmationRequired,
  confirmMove,
  isAnotherPerson,
  moveFromCurrent,
  movesPast,
  personOf,
  secondApprovalThreshold,
  shownApprovalStatus,
  shownTolerancePct,
  waitingUntil,
  withinShownTolerance,
} from './rules.ts';

const move = { sku: 'PUMP', currency: 'USD', currentPriceCents: 61_056 };

describe('the thresholds of a workspace', () => {
  it('confirm past the max-change percentage by default, and ask for no second approver', () => {
    expect(approvalThresholds(defaultPricingSettings)).toEqual({ confirmPct: 25, secondApprovalPct: undefined });
    expect(approvalThresholds({ ...defaultPricingSettings, maxChangePct: 40 })).toEqual({ confirmPct: 40, secondApprovalPct: undefined });
  });

  it('follow the settings that name them', () => {
    expect(approvalThresholds({ ...defaultPricingSettings, approvalConfirmPct: 50, secondApprovalPct: 200 })).toEqual({
      confirmPct: 50,
      secondApprovalPct: 200,
    });
  });
});

describe('the move from the current price', () => {
  it('is +900% for 6,105.60 over 610.56, and null with no current price', () => {
    expect(moveFromCurrent(610_560, 61_056)).toBe(900);
    expect(moveFromCurrent(100, 0)).toBeNull();
  });

  it('goes past a threshold either way, measured in whole minor units rather than a rounded percent', () => {
    expect(movesPast(1250, 1000, 25)).toBe(false);
    expect(movesPast(1251, 1000, 25)).toBe(true);
    expect(movesPast(750, 1000, 25)).toBe(false);
    expect(movesPast(749, 1000, 25)).toBe(true);
  });

  it('is within the threshold at the price the engine rounds its own max-change bound to', () => {
    // 25% over 19.99 is 24.9875, which the engine rounds to 24.99.
    expect(movesPast(2499, 1999, 25)).toBe(false);
    expect(movesPast(2500, 1999, 25)).toBe(true);
  });

  it('from no current price is past every threshold', () => {
    expect(movesPast(1, 0, 100_000)).toBe(true);
  });
});

describe('a large move', () => {
  const thresholds = { confirmPct: 25, secondApprovalPct: undefined };

  it('is refused with confirmation_required naming both prices and the change, unless confirmed', () => {
    const error = thrownApiError(() => confirmMove({ ...move, priceCents: 610_560 }, thresholds, undefined));
    expect(error).toBeInstanceOf(ConfirmationRequired);
    expect(error).toMatchObject({ code: 'confirmation_required', status: 422 });
    expect(error.message).toContain('6,105.60 USD');
    expect(error.message).toContain('610.56 USD');
    expect(error.message).toContain('+900.00%');
    expect(thrownApiError(() => confirmMove({ ...move, priceCents: 610_560 }, thresholds, false)).code).toBe('confirmation_required');
  });

  it('is recorded as confirmed when the request confirms it', () => {
    expect(confirmMove({ ...move, priceCents: 610_560 }, thresholds, true)).toEqual({ thresholdPct: 25, changePct: 900 });
  });

  it('needs no confirmation within the threshold, confirmed or not', () => {
    expect(confirmMove({ ...move, priceCents: 61_056 }, thresholds, undefined)).toBeUndefined();
    expect(confirmMove({ ...move, priceCents: 70_000 }, thresholds, true)).toBeUndefined();
  });

  it('of a product with no current price says so', () => {
    const error = thrownApiError(() => confirmMove({ ...move, currentPriceCents: 0, priceCents: 500 }, thresholds, undefined));
    expect(error.message).toContain('PUMP has no current price');
  });
});

describe('the second approver', () => {
  it('is needed only past the threshold the workspace sets', () => {
    expect(secondApprovalThreshold(610_560, 61_056, { confirmPct: 25, secondApprovalPct: 100 })).toBe(100);
    expect(secondApprovalThreshold(70_000, 61_056, { confirmPct: 25, secondApprovalPct: 100 })).toBeUndefined();
    expect(secondApprovalThreshold(610_560, 61_056, { confirmPct: 25, secondApprovalPct: undefined })).toBeUndefined();
  });

  it('has 24 hours, after which the waiting approval shows expired', () => {
    const until = waitingUntil('2026-11-27T01:00:00.000Z');
    expect(until).toBe('2026-11-28T01:00:00.000Z');
    const waiting = { status: 'waiting' as const, secondApproval: { thresholdPct: 100, waitingUntil: until } };
    expect(shownApprovalStatus(waiting, Date.parse(until) - 1)).toBe('waiting');
    expect(shownApprovalStatus(waiting, Date.parse(until))).toBe('expired');
    expect(shownApprovalStatus({ status: 'published', secondApproval: undefined }, Date.parse(until))).toBe('published');
  });
});

describe('who approved', () => {
  it('is the recorded approver, or for an older approval its key id, a console user by the usr_ prefix', () => {
    expect(approverOf({ keyId: 'usr_1', approver: { type: 'console_user', id: 'usr_1', email: 'a@b.example' } })).toEqual({
      type: 'console_user',
      id: 'usr_1',
      email: 'a@b.example',
    });
    expect(approverOf({ keyId: 'usr_2', approver: undefined })).toEqual({ type: 'console_user', id: 'usr_2' });
    expect(approverOf({ keyId: 'key_3', approver: undefined })).toEqual({ type: 'api_key', id: 'key_3' });
  });
});

describe('the confirmation of a product held by data warnings', () => {
  const thresholds = approvalThresholds(defaultPricingSettings);
  const warnings = [
    { code: 'cost_jump' as const, message: 'cost 3,000.00 USD is 10 times the cost it was in line at, 300.00 USD.' },
    { code: 'price_below_cost' as const, message: 'current price 610.56 USD is below the cost 3,000.00 USD.' },
  ];

  it('is needed whatever the move, and the refusal names each warning by code and message', () => {
    const error = thrownApiError(() => confirmMove({ ...move, priceCents: 61_100 }, thresholds, undefined, warnings));
    expect(error).toBeInstanceOf(ConfirmationRequired);
    expect(error.code).toBe('confirmation_required');
    expect(error.message).toBe(
      'price 611.00 USD: the data of PUMP looks wrong: cost_jump (cost 3,000.00 USD is 10 times the cost it was in line at, 300.00 USD.); ' +
        'price_below_cost (current price 610.56 USD is below the cost 3,000.00 USD.). Approve again with "confirm": true to publish it.',
    );
    expect((error as ConfirmationRequired).pending).toMatchObject({ large: false, warnings });
  });

  it('names the large move and the warnings together, and records the codes it was confirmed over', () => {
    const error = thrownApiError(() => confirmMove({ ...move, priceCents: 610_560 }, thresholds, false, warnings));
    expect(error.message).toMatch(/^price 6,105\.60 USD: that is \+900\.00% .* unconfirmed; and the data of PUMP looks wrong: cost_jump/);
    expect(confirmMove({ ...move, priceCents: 61_100 }, thresholds, true, warnings)).toEqual({
      thresholdPct: 25,
      changePct: 0.07,
      warnings: ['cost_jump', 'price_below_cost'],
    });
    expect(confirmMove({ ...move, priceCents: 61_100 }, thresholds, undefined, [])).toBeUndefined();
  });
});

describe('two approvers', () => {
  const ann = {
    type: 'console_user',
    id: 'usr_ann',
    email: 'ann@example.com',
    createdBy: 'operator',
    createdAt: '2026-01-01T00:00:00.000Z',
  } as const;
  const since = '2026-06-01T10:00:00.000Z';

  it('are one person when the second is a key the first made, whoever it says it is', () => {
    expect(isAnotherPerson(ann, { ...ann }, since)).toBe(false);
    expect(isAnotherPerson({ type: 'operator', id: 'operator' }, { type: 'operator', id: 'operator' }, since)).toBe(false);
  });

  it('are one person when the second is a user the first made once the wait began, and two when made before', () => {
    const madeDuring = { type: 'console_user', id: 'usr_bob', createdBy: 'usr_ann', createdAt: '2026-06-01T10:05:00.000Z' } as const;
    expect(isAnotherPerson(ann, madeDuring, since)).toBe(false);
    expect(isAnotherPerson(ann, { ...madeDuring, createdAt: since }, since)).toBe(false);
    expect(isAnotherPerson(ann, { ...madeDuring, createdAt: '2026-05-31T09:00:00.000Z' }, since)).toBe(true);
    expect(isAnotherPerson(ann, { ...madeDuring, createdBy: 'usr_carol' }, since)).toBe(true);
  });

  it('read an older approval with no person as its approver alone', () => {
    expect(personOf({ keyId: 'key_1', approver: { type: 'api_key', id: 'key_1' }, person: undefined })).toEqual({
      type: 'api_key',
      id: 'key_1',
    });
    expect(personOf({ keyId: 'key_1', approver: undefined, person: ann })).toBe(ann);
  });
});

describe('the tolerance of an approval of the shown price', () => {
  it('is 1% unless the workspace sets its own', () => {
    expect(shownTolerancePct(defaultPricingSettings)).toBe(1);
    expect(shownTolerancePct({ ...defaultPricingSettings, approvalShownTolerancePct: 0.5 })).toBe(0.5);
  });

  it('holds a move of a cent or two on a price of tens as within it, either way', () => {
    expect(withinShownTolerance(5804, 5803, 1)).toBe(true);
    expect(withinShownTolerance(8927, 8924, 1)).toBe(true);
    expect(withinShownTolerance(5804, 5862, 1)).toBe(true);
    expect(withinShownTolerance(5804, 5746, 1)).toBe(true);
  });

  it('holds a move past the percentage as beyond it', () => {
    expect(withinShownTolerance(5804, 5863, 1)).toBe(false);
    expect(withinShownTolerance(5804, 5745, 1)).toBe(false);
  });

  it('always allows one minor unit, however small the price or the percentage', () => {
    expect(withinShownTolerance(50, 51, 1)).toBe(true);
    expect(withinShownTolerance(50, 52, 1)).toBe(false);
    expect(withinShownTolerance(5804, 5805, 0)).toBe(true);
    expect(withinShownTolerance(5804, 5806, 0)).toBe(false);
  });
});
