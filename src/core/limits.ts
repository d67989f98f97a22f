/**
 * The limits of spec sections 2 and 8, and the deployed service's where the spec is silent
 * (docs/http.md "Routes" and docs/errors.md). One place, so the core, the server and the docs
 * agree.
 */
export const LIMITS = {
  publicKeyMin: 16,
  publicKeyMax: 4096,
  identityMin: 1,
  identityMax: 1024,
  signerMax: 1024,
  extraSnapshotMax: 1024,
  signaturesMax: 8,
  searchIdentitiesMax: 50,
  /**
   * The bytes of one decoded content snapshot at most: every card is an entry of the
   * transparency log, and an entry bundle writes each entry's length as a big-endian uint16
   * (C2SP tlog-tiles v0.1.0, "Log entries"). A create's body (bodyMax) carries at most about
   * 48 KiB of snapshot as base64; an import line (importLineMax) could carry more, which the log
   * could never write.
   */
  snapshotMax: 0xffff,
  /** Request bodies above this are refused with 413; a legal card is far smaller. */
  bodyMax: 64 * 1024,
  /** One line of an import (a stored card record: a card's body and the service's signature). */
  importLineMax: 128 * 1024,
  /**
   * One Keyknox line of an import (a v1 blob, or a v2 entry with every reader's copy: pushes of
   * up to 1 MiB each, kept per reader): read whole, so bounded, far above e3kit's entries.
   */
  keyknoxLineMax: 32 * 1024 * 1024,
  /**
   * The bytes of `meta` and `value` one Keyknox v2 entry keeps, over every reader's copy: each
   * reader keeps the copy pushed when it was named, so without a bound 1,024 readers of 1 MiB
   * pushes are 1 GiB in one entry, written whole at each push. As base64 with 1,024 readers'
   * names it still fits one import line (keyknoxLineMax).
   */
  keyknoxEntryMax: 16 * 1024 * 1024,
  /**
   * The bytes of one Keyknox push's body at most (e3kit's routes refuse more with 413), so also
   * of a v1 blob's `meta` and `value` together: an import line holding more is one no push could
   * leave.
   */
  keyknoxPushMax: 1024 * 1024,
  /** Most readers one Keyknox v2 entry may have (a push's list, and all pushes' together). */
  keyknoxReadersMax: 1024,
  /**
   * The UTF-8 bytes of one Keyknox address's parts together (v1: app and identity; v2: app,
   * owner, root, path and key). Every engine keys a blob or an entry by its whole address, and
   * a PostgreSQL B-tree index holds at most 2,704 bytes a row (its maximum index row size), so
   * an address longer than that would be stored by one engine and refused by another. The app
   * and the owner come from the token; each other part is at most identityMax.
   */
  keyknoxAddressMax: 2048,
  /**
   * A v1 blob's version and any Keyknox record's revision in an import line, at most. Each push
   * adds one, so an import above this could leave a number past what PostgreSQL's integer
   * column holds (2,147,483,647, the version) or what JavaScript reads back exactly (2^53 - 1,
   * the revision: the JSON engine's file would then hold a line it cannot read).
   */
  keyknoxCounterMax: 1_000_000_000,
  /**
   * The latest Keyknox date (ms since the epoch) an import line may hold: 9999-12-31T23:59:59.999Z,
   * which every engine keeps and an ISO 8601 string of four-digit years writes.
   */
  keyknoxDateMax: 253_402_300_799_999,
  /**
   * Most bytes a client reads of one answer of the card routes: far above any search answer,
   * far below the 512 MiB a JavaScript string holds; a server sending more is not answering as
   * a Cards service.
   */
  answerMax: 256 * 1024 * 1024,
  /** The admin API's pages (cards, identities): rows by default, and at most. */
  adminPageDefault: 100,
  adminPageMax: 1000,
  /**
   * Most bytes of the rows of one admin page (cards, identities, Keyknox), as the UTF-8 JSON list
   * they are sent as; a page holds at least its first row whatever its size. A Keyknox v2 row
   * names up to keyknoxReadersMax readers of up to identityMax bytes each, up to six bytes each
   * as JSON escapes them: about 6 MiB a row, so adminPageMax of them would pass the 512 MiB a
   * JavaScript string holds; a card or identity row is at most about 6.5 KB.
   */
  adminPageBytes: 4 * 1024 * 1024,
  /**
   * Token time checks (spec 5), in seconds. `exp` has no leeway, as on the deployed service
   * and in the stock client's own rule (a token is expired from its `exp` on); a token issued
   * slightly in the future (`iat`/`nbf`, the issuer's clock ahead) gets a few seconds.
   * `cards serve --clock-skew` widens both.
   */
  tokenExpiryLeewaySeconds: 0,
  tokenIssuedLeewaySeconds: 5,
} as const;

export const SNAPSHOT_VERSION = '5.0';

/** Signer name of the card owner (spec 2.3). */
export const SELF_SIGNER = 'self';

/** A card id: 64 hex characters (spec 2.4). Accepted in either case, stored lowercase. */
export const CARD_ID_PATTERN = /^[0-9a-fA-F]{64}$/;

export const isCardId = (text: unknown): text is string =>
  typeof text === 'string' && CARD_ID_PATTERN.test(text);
