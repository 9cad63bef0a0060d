// The settings of a live start with MTN MoMo and Airtel Money (their required credentials), at
// addresses no test calls: for tests of the live configuration and of what stops before a payment.
export const LIVE_PAYMENT_ENV = {
  PAYMENT_PROVIDER: 'live',
  MOMO_BASE_URL: 'https://momo.example.org',
  MOMO_SUBSCRIPTION_KEY: 'subscription-key',
  MOMO_API_USER: 'api-user',
  MOMO_API_KEY: 'api-key',
  AIRTEL_BASE_URL: 'https://airtel.example.org',
  AIRTEL_CLIENT_ID: 'client-id',
  AIRTEL_CLIENT_SECRET: 'client-secret',
};
