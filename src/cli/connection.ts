/**
 * Builds the HTTP client and its token source from the settings in force: a fixed token, the
 * vendor app config (the stock VEDS512 tokens), an app key, or the local app key of a
 * `cards serve` store. Also reads the vendor CLI's app credentials JSON.
 */
import { existsSync } from 'node:fs';
import { CardsClient } from '../client/http-client.js';
import { fixedToken, mintingTokens, type TokenSource } from '../client/token-source.js';
import { CardsError } from '../core/errors.js';
import { decodeBase64 } from '../core/encoding.js';
import { PrivateKey } from '../crypto/keys.js';
import type { TokenFormat } from '../crypto/tokens.js';
import type { CommandContext } from './context.js';
import { parseJson, readFileBytes, readPrivateKey } from './inputs.js';
import { escapeTerminal } from '../core/terminal-text.js';
import { sendableToken, setBy, type Settings } from './settings.js';
import { ownerUrl } from './local-server.js';
import { shellQuote } from './shell-quote.js';
import { fileHome } from '../server/file-home.js';

/** Lifetime of tokens minted for requests: 20 minutes, the stock client's default. */
const REQUEST_TOKEN_TTL_SECONDS = 20 * 60;

export interface AppCredentials {
  readonly key: PrivateKey;
  readonly format: TokenFormat;
  readonly appId?: string;
  readonly kid?: string;
  readonly file: string;
}

/** The vendor CLI's app credentials file: {"APP_ID","APP_KEY_ID","APP_KEY"}. */
function readAppConfig(ctx: CommandContext, file: string): AppCredentials {
  const json = parseJson(
    readFileBytes(ctx, file, 'App config').toString('utf8'),
    `App config ${file}`,
  );
  const raw = (json ?? {}) as Record<string, unknown>;
  const { APP_ID: appId, APP_KEY_ID: kid, APP_KEY: appKey } = raw;
  if (typeof appId !== 'string' || typeof kid !== 'string' || typeof appKey !== 'string') {
    throw new CardsError(
      'CONFIG_INVALID',
      `App config ${file} must be a JSON object with string fields APP_ID, APP_KEY_ID and APP_KEY.`,
    );
  }
  const der = decodeBase64(appKey.replace(/\s+/g, ''));
  if (!der)
    throw new CardsError('KEY_FORMAT', `App config ${file}: APP_KEY is not base64 DER PKCS#8.`);
  return { key: PrivateKey.fromPkcs8(der), format: 'stock', appId, kid, file };
}

/** The key that mints tokens, per the settings' credential; undefined for a fixed token. */
export function appCredentials(
  ctx: CommandContext,
  settings: Settings,
): AppCredentials | undefined {
  const credential = settings.credential;
  if (credential === undefined) throw missingCredentials(ctx, settings);
  switch (credential.kind) {
    case 'token':
      return undefined;
    case 'app-config':
      return readAppConfig(ctx, credential.file);
    case 'app-key':
    case 'local-app-key':
      return {
        key: readPrivateKey(ctx, credential.file),
        format: 'jwt',
        file: credential.file,
      };
  }
}

export function missingCredentials(ctx: CommandContext, settings: Settings): CardsError {
  const local = fileHome(settings.db.value, ctx.cwd).appKey;
  if (existsSync(local)) {
    // The local store's app key is there, and withheld: it belongs to another server.
    const owner = ownerUrl(settings.db.value, ctx.cwd);
    return new CardsError(
      'CREDENTIALS_MISSING',
      `No token to send to ${settings.url.value}: the app key beside ${settings.db.value} mints tokens only for the server holding that store, ${owner ?? 'and none holds it now (its address file names no running server)'}.`,
      {
        hint: owner
          ? `to reach that server, pass --url ${owner} (or no --url); for this one, pass --token JWT or --app-key FILE`
          : `start it (\`cards serve --db ${shellQuote(settings.db.value)}\`) and leave out --url; for another server, pass --token JWT or --app-key FILE`,
      },
    );
  }
  return new CardsError(
    'CREDENTIALS_MISSING',
    `No token or app key to authenticate with ${settings.url.value}.`,
    {
      hint: `pass --token JWT or --app-key FILE; for a local \`cards serve\`, run in the folder of its store or pass --db (looked for the app key beside ${settings.db.value}); for one on PostgreSQL, which keeps its app key in the database, \`cards jwt --store URL --identity ${shellQuote(settings.identity?.value ?? 'ID')}\` mints a --token`,
    },
  );
}

/** The credential as "the token sent …" goes on, for a refusal to name what to fix. */
function describeCredential(credential: NonNullable<Settings['credential']>): string {
  switch (credential.kind) {
    case 'token':
      return `came from ${setBy('token', credential.source)}`;
    case 'app-key':
    case 'app-config':
      return `was minted with the ${credential.kind === 'app-key' ? 'app key' : 'app config'} ${credential.file} (${setBy(credential.kind === 'app-key' ? 'appKey' : 'appConfig', credential.source)})`;
    case 'local-app-key':
      return `was minted with the local app key ${credential.file}, beside the store`;
  }
}

function tokenSource(ctx: CommandContext, settings: Settings): TokenSource {
  if (settings.withheld !== undefined)
    throw new CardsError(
      'CREDENTIALS_MISSING',
      `No token to send to ${settings.url.value}: ${settings.withheld}.`,
      { hint: "to reach the profile's server, leave out --url and CARDS_URL" },
    );
  const credential = settings.credential;
  if (credential?.kind === 'token')
    return fixedToken(
      sendableToken(credential.token, setBy('token', credential.source)),
      describeCredential(credential),
    );
  const app = appCredentials(ctx, settings) as AppCredentials;
  return mintingTokens({
    key: app.key,
    format: app.format,
    ttlSeconds: REQUEST_TOKEN_TTL_SECONDS,
    now: ctx.now,
    ...(settings.credential && { from: describeCredential(settings.credential) }),
    ...(app.kid === undefined ? {} : { kid: app.kid }),
    ...(app.appId === undefined ? {} : { appId: app.appId }),
  });
}

export function connect(ctx: CommandContext, settings: Settings): CardsClient {
  return new CardsClient({
    timeoutMs: settings.timeout.value * 1000,
    url: settings.url.value,
    profile: settings.wire,
    tokens: tokenSource(ctx, settings),
    ...(settings.identity ? { readIdentity: settings.identity.value } : {}),
    // --debug (CARDS_DEBUG): every exchange on stderr, token redacted. Bodies are the server's
    // text: escaped line by line like every other output.
    ...(settings.debug
      ? {
          debug: (text: string) =>
            ctx.stderr.write(text.split('\n').map(escapeTerminal).join('\n')),
        }
      : {}),
  });
}
