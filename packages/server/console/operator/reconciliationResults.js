// The results a reconciliation item can have, in the order the runs list and a run's chips show them (protocol's).
export { RECONCILIATION_RESULTS } from '../vocabulary.js';
