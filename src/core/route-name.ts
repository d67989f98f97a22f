/**
 * A route named by a person: its name in the route table, or a prefix only one route's name
 * starts with (`create` for createCard, `search` for searchCards), as `cards faults add --route`
 * and `cards requests --route` take it. Pure.
 */
import { ROUTES, type RouteName } from './routes.js';

export type RouteNameLookup =
  | { readonly route: RouteName }
  | { readonly error: string; readonly candidates: readonly RouteName[] };

/** `name` among `among` (default: every route). */
export function lookUpRoute(
  name: string,
  among: readonly RouteName[] = ROUTES.map((route) => route.name),
): RouteNameLookup {
  if ((among as readonly string[]).includes(name)) return { route: name as RouteName };
  const matches = name === '' ? [] : among.filter((route) => route.startsWith(name));
  if (matches.length === 1) return { route: matches[0] as RouteName };
  return matches.length > 1
    ? {
        error: `route "${name}" could be ${matches.join(', ')}: give the whole name.`,
        candidates: matches,
      }
    : {
        error: `route "${name}" is not a route name; the routes: ${among.join(', ')}.`,
        candidates: among,
      };
}
