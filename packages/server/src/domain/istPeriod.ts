/**
 * India Standard Time: the calendar Payrail's periods are in (allowances, statements, console filters, bank files,
 * reconciliation). The rules live in the protocol (packages/protocol/src/istTime.ts), which the CLI shares; the
 * server reads them from here.
 */
export {
  IST_DAY_MS,
  istDateTime,
  istDay,
  istDayEnd,
  istDayStart,
  istDayStartOf,
  istHourStartOf,
  istMonth,
} from '@payrail/protocol';
