/**
 * The webhook signature schemes (webhooks.ts explains them), in a module of their own: the
 * settings name them, and every command that reads a setting would otherwise load the
 * signing and verifying code with them (and, through the bundle's chunks, undici).
 */
export const WEBHOOK_SCHEMES = ['standard', 'stripe', 'hmac'] as const;
export type WebhookScheme = (typeof WEBHOOK_SCHEMES)[number];
