// The payment settings of the configuration (config.ts): the simulator or the live providers, and
// each payment method's own settings (payments/methods/settings.ts): its live config, read and
// checked in its folder, and its largest payment per currency.
import type { Static, TObject, TProperties } from 'typebox';
import { ConfigError } from './config-error.ts';
import type { Env } from './config-schema.ts';
import type { MethodConfig, MethodSettings } from './payments/methods/method-settings.ts';
import type { PAYMENT_METHOD_SETTINGS } from './payments/methods/settings.ts';

type LiveOf<S> = S extends MethodSettings<string, TProperties, infer L> ? L : never;

/**
 * Each method's config by key: exact for the methods of settings.ts, and present (unknown live
 * config) under the key of any other method whose settings loadConfig was given.
 */
type MethodConfigs = {
  readonly [S in (typeof PAYMENT_METHOD_SETTINGS)[number] as S['key']]: MethodConfig<LiveOf<S>>;
} & Readonly<Record<string, MethodConfig | undefined>>;

export interface PaymentsConfig {
  /** simulator: the built-in provider simulator, started in-process; live: the real APIs */
  provider: NonNullable<Env['PAYMENT_PROVIDER']>;
  /**
   * SIMULATOR_URL: a simulator already running there (`npm run simulator`) instead of one started
   * in-process, e.g. so that it outlives this process; without a trailing slash
   */
  simulatorUrl?: string;
  /** multiplies the prompt window and polling schedule, and the simulator's delays (tests: 0.01) */
  timeScale: number;
  /** simulator port (0 = any free port) */
  simulatorPort: number;
  /** deadline of each call to a provider */
  httpTimeoutMs: number;
  /** each method's live config (live only, and only when its settings take it) and largest payment */
  methods: MethodConfigs;
}

/** Reads one method's variables from the environment (config.ts's parser, ConfigError on a bad one). */
export type ReadVariables = <P extends TProperties>(properties: P) => Static<TObject<P>>;

export function paymentsConfig(
  env: Env,
  methods: readonly MethodSettings[],
  read: ReadVariables,
): PaymentsConfig {
  const provider = env.PAYMENT_PROVIDER ?? (env.NODE_ENV === 'production' ? 'live' : 'simulator');
  const simulatorUrl = env.SIMULATOR_URL && new URL(env.SIMULATOR_URL).toString().replace(/\/+$/, '');
  if (simulatorUrl && provider !== 'simulator') {
    throw new ConfigError('SIMULATOR_URL applies only to PAYMENT_PROVIDER=simulator');
  }
  if (simulatorUrl && env.SIMULATOR_PORT !== undefined) {
    throw new ConfigError(
      'set SIMULATOR_URL (a running simulator) or SIMULATOR_PORT (one started here), not both',
    );
  }
  const configs: Record<string, MethodConfig> = {};
  for (const method of methods) {
    const vars = read(method.env);
    const live = provider === 'live' ? method.live(vars) : undefined;
    configs[method.key] = { ...(live === undefined ? {} : { live }), maxAmount: method.maxAmount(vars) };
  }
  return {
    provider,
    ...(provider === 'simulator' && simulatorUrl ? { simulatorUrl } : {}),
    timeScale: env.PAYMENT_TIME_SCALE ?? env.SIMULATOR_TIME_SCALE ?? 1,
    simulatorPort: env.SIMULATOR_PORT ?? 0,
    httpTimeoutMs: env.PAYMENT_HTTP_TIMEOUT_MS,
    // The one cast: each key holds what that key's settings read (loadConfig always reads the
    // methods of settings.ts, so their keys are all here).
    methods: configs as MethodConfigs,
  };
}
