import { InvalidArgumentError } from 'commander';

// Parsers of option and argument values that several commands share: commander reports a value they refuse as
// a usage error (exit 2).

export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a whole number ≥ 1');
  return Number(value);
}

export function amountArg(value: string): string {
  if (!/^\d{1,15}(\.\d{1,2})?$/.test(value)) {
    throw new InvalidArgumentError('expected rupees like 1000 or 1000.50 (at most two decimals)');
  }
  return value;
}

export function secondsArg(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new InvalidArgumentError('expected seconds, e.g. 120');
  return Number(value);
}
