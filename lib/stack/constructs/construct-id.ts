// Construct ids derived from route-table ids, so a row's resources are recognisable in the template.

/** `openBatch` becomes `OpenBatch`. */
export function constructId(rowId: string): string {
  return rowId.charAt(0).toUpperCase() + rowId.slice(1);
}
