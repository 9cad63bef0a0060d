// The live settings of the payment methods the service takes, one entry per method (its
// <key>-settings.ts), in the catalogue's order. config-schema.ts and config-payments.ts compose
// them; a method folder's settings file loads no adapter, so neither does the configuration.
import { airtelSettings } from './airtel/airtel-settings.ts';
import { cardSettings } from './card/card-settings.ts';
import { momoSettings } from './momo/momo-settings.ts';
import { mpesaSettings } from './mpesa/mpesa-settings.ts';

export const PAYMENT_METHOD_SETTINGS = [momoSettings, airtelSettings, mpesaSettings, cardSettings] as const;
