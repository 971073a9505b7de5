// The examples' ids: one connector's day, as the README walks through it.
export const CONNECTOR_ID = 'con_ygFmMntTST85In8bmiY37I';
export const BATCH_ID = '101ba56e-5a0c-4d4f-9f43-3b1a8c2e7d90';
export const TASK_ID = 'wb_7Qm2LxVb9TgK4rNc1ZsP8d';
export const APPROVAL_ID = 'apv_3vXq8NcT2LmB7dKp0RwZ5y';
export const RECOMMENDATION_DECISION_ID = 'pd_3vXq8NcT2LmB7dKp0RwZ5y';
