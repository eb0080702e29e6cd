export const RETRIES = 3;
export const TIMEOUT_MS = 1000;
