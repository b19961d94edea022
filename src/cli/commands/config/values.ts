/** How `sign-cli config` shows what it stores: secrets masked (a key, a password in a URL). */
import { maskKey } from '../../../core/keys.js';
import { SETTINGS, type SettingSpec } from '../../config/settings.js';

/** A value as text for a person. */
export function show(value: unknown, spec?: SettingSpec): string {
  if (value === undefined) return '';
  if (spec?.show) return spec.show(value);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A setting's value as it may be shown (a password in the rate store URL masked). */
export function shown(value: unknown, spec: SettingSpec): unknown {
  return value !== undefined && spec.show ? spec.show(value) : value;
}

/** The config as `config list` shows it: every key masked. */
export function masked(store: Record<string, unknown>): Record<string, unknown> {
  const profiles = (store.profiles ?? {}) as Record<string, Record<string, unknown>>;
  const settings = (store.settings ?? {}) as Record<string, unknown>;
  return {
    ...store,
    ...(store.settings === undefined
      ? {}
      : {
          settings: Object.fromEntries(
            Object.entries(settings).map(([name, value]) => [
              name,
              SETTINGS[name] ? shown(value, SETTINGS[name]) : value,
            ]),
          ),
        }),
    profiles: Object.fromEntries(
      Object.entries(profiles).map(([name, p]) => [
        name,
        { ...p, ...(typeof p.api_key === 'string' ? { api_key: maskKey(p.api_key) } : {}) },
      ]),
    ),
  };
}
