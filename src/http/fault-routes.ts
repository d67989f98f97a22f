/**
 * The admin API's fault routes: GET, POST and DELETE /_cards/faults over the server's FaultSet
 * (faults.ts). A body with a rule that cannot be followed is refused whole (FAULT_INVALID): no
 * rule of it is added.
 */
import { parseFaultRules } from '../core/fault-rule.js';
import type { ActiveFault, FaultSet } from './faults.js';
import { sendJson, type Handler } from './route-group.js';

/** A rule as the admin API shows it: its fields, id, hits and what is left of its count. */
const shown = (rule: ActiveFault) => ({ ...rule, delay: rule.delay && delayText(rule.delay) });
const delayText = ({ min, max }: { min: number; max: number }): string =>
  min === max ? String(min) : `${min}-${max}`;

export function faultHandlers(
  faults: FaultSet,
): Record<'adminFaults' | 'adminFaultsAdd' | 'adminFaultsClear', Handler> {
  return {
    adminFaults: async (_request, reply) => sendJson(reply, { faults: faults.list().map(shown) }),
    adminFaultsAdd: async (request, reply) =>
      sendJson(reply, { faults: faults.add(parseFaultRules(request.body)).map(shown) }, 201),
    adminFaultsClear: async (_request, reply) => sendJson(reply, { cleared: faults.clear() }),
  };
}
