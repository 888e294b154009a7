// Conversions (docs/conversions.md): click ids, customers, leads, sales and refunds.
export { findClickForConversion, recordLead, PENDING_CLICK_MS, type ConversionOwner, type LeadResult, type PendingClicks } from "./leads.js";
export { recordRefund, recordSale, type RefundResult, type SaleResult } from "./sales.js";
export { eraseCustomer, getCustomer, listCustomers, type CustomerPage } from "./customers.js";
export { clickIdTime, newClickId, storeTrackedClicks, trackedClicksListener, trackedRow, withQueryParam, type TrackedVisit } from "./tracked-clicks.js";
export { settingsOf, updateSettings } from "./settings.js";
export { checkAmount, checkCurrency, checkMetadata, DEFAULT_ATTRIBUTION_DAYS, MAX_AMOUNT, MAX_METADATA_BYTES } from "./inputs.js";
