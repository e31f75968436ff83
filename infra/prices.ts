/** The prices the dashboard's cost estimates use: the same table the sessions' costs come from (functions/core/prices.ts). */
export { type Prices, taskPricePerSecond, US_EAST_1_PRICES } from '../functions/core/prices';
