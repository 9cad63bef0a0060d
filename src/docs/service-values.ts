// The guides as this service serves them: the Markdown in the repository is written for a service
// on its defaults (API on 127.0.0.1:4000, checkout site on localhost:4001, data in .data); served,
// every default URL and data path names this service's own, and each `npm run cli --` command
// carries the settings that differ, so that a command copied from /docs reaches this service.
// docs/decisions/served-guides-name-the-service.md.
import { isAbsolute, resolve } from 'node:path';
import { readVariable, type Config } from '../config.ts';

export interface ServiceValues {
  apiUrl: string;
  siteUrl: string;
  appUrl: string;
  /** the data directory as configured; memory:// keeps no demo.json and is left unnamed */
  dataDir: string;
}

/** The defaults the guides are written for: the configuration schema's own. */
const DEFAULTS: ServiceValues = {
  apiUrl: new URL(readVariable('API_URL', {})).origin,
  siteUrl: new URL(readVariable('SITE_URL', {})).origin,
  appUrl: new URL(readVariable('APP_URL', {})).origin,
  dataDir: readVariable('DATA_DIR', {}),
};

export function serviceValuesOf(config: Config): ServiceValues {
  return {
    apiUrl: config.apiUrl.origin,
    siteUrl: config.siteUrl.origin,
    appUrl: config.appUrl.origin,
    dataDir: config.dataDir,
  };
}

/** A word a POSIX shell reads as it is: quoted only when it holds something the shell would expand. */
function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The guide's Markdown with this service's values where the defaults were. */
export function fillServiceValues(markdown: string, values: ServiceValues, cwd = process.cwd()): string {
  const onDisk = !values.dataDir.startsWith('memory://');
  const dataPath = isAbsolute(values.dataDir) ? values.dataDir : resolve(cwd, values.dataDir);
  const urls = new Map([
    [DEFAULTS.apiUrl, values.apiUrl],
    [DEFAULTS.siteUrl, values.siteUrl],
    [DEFAULTS.appUrl, values.appUrl],
  ]);
  // One pass over the three, so that a value that is another's default is not replaced again.
  const anyUrl = new RegExp([...urls.keys()].map(escapeRegExp).join('|'), 'g');
  let text = markdown.replace(anyUrl, (url) => urls.get(url)!);

  const changed = onDisk && values.dataDir !== DEFAULTS.dataDir;
  if (changed) {
    // `.data/demo.json`, `./.data/`: a path that starts a word, never a property such as `x.data.id`.
    const dataWord = new RegExp(`(?<=^|[\\s\`'"(])(?:\\./)?${escapeRegExp(DEFAULTS.dataDir)}(?=/)`, 'gm');
    text = text.replace(dataWord, dataPath);
  }
  const settings = [
    ...(changed ? [['DATA_DIR', dataPath]] : []),
    ...(values.apiUrl !== DEFAULTS.apiUrl ? [['API_URL', values.apiUrl]] : []),
    ...(values.siteUrl !== DEFAULTS.siteUrl ? [['SITE_URL', values.siteUrl]] : []),
    ...(values.appUrl !== DEFAULTS.appUrl ? [['APP_URL', values.appUrl]] : []),
  ];
  if (settings.length > 0) {
    const prefix = settings.map(([name, value]) => `${name}=${shellWord(value!)}`).join(' ');
    text = text.replace(/\bnpm run (-s )?cli -- /g, (command) => `${prefix} ${command}`);
  }
  return text;
}
