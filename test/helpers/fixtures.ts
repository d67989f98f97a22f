/** Reads files from the repository's fixtures/ folder (never from outside the repository). */
import { readFileSync } from 'node:fs';

const root = new URL('../../../fixtures/', import.meta.url);

export const fixturePath = (name: string): string => new URL(name, root).pathname;

export function readFixture<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, root), 'utf8')) as T;
}
