// The bench's cost figures use the service's one set of dated list prices, which the cost report reads too.
export * from '../../shared/cost/list-prices.ts';
