/** The product's feature modules, in the order a user meets them. */
export const FEATURE_MODULES = [];
