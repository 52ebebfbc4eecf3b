// Where the merchant's pages read: only /console/api/merchant/… routes, which answer nothing of other merchants.
export const MERCHANT_API = '/console/api/merchant';
