/**
 * The wire words that name the service (spec: "the neutral word `service` is used in its
 * place"). The default profile is spec-literal; `virgil` is the deployed service's own words,
 * which its stock clients need (docs/http.md "Routes" and docs/errors.md). Nothing else differs.
 */
export type ProfileName = 'service' | 'virgil';

export interface WireProfile {
  readonly name: ProfileName;
  /** Authorization scheme word: `Authorization: <scheme> <JWT>` (compared case-insensitively). */
  readonly scheme: string;
  /** Signer name of the service's own signature on every stored card. */
  readonly signer: string;
  /** Response header on GET of a superseded card (spelling as the service gives it). */
  readonly supersededHeader: string;
  /** Error object `code`: the spec types it as a string; the stock client needs a number. */
  readonly codeType: 'string' | 'number';
}

export const PROFILES = {
  service: {
    name: 'service',
    scheme: 'Service',
    signer: 'service',
    supersededHeader: 'X-Service-Is-Superseeded',
    codeType: 'string',
  },
  virgil: {
    name: 'virgil',
    scheme: 'Virgil',
    signer: 'virgil',
    supersededHeader: 'X-Virgil-Is-Superseeded',
    codeType: 'number',
  },
} as const satisfies Record<ProfileName, WireProfile>;

export const isProfileName = (name: string): name is ProfileName => Object.hasOwn(PROFILES, name);

/**
 * The Keyknox hash headers, named with the profile's scheme word (`Virgil-Keyknox-Hash` in the
 * deployed service's words): the hash of every Keyknox answer, and the one a push replaces.
 */
export const keyknoxHeaders = (profile: Pick<WireProfile, 'scheme'>) => ({
  hash: `${profile.scheme}-Keyknox-Hash`,
  previous: `${profile.scheme}-Keyknox-Previous-Hash`,
});
