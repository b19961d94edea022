/** What `config get|set|unset <TAB>` offers: every setting name, with what it is. */
import { ENDPOINTS } from '../../../core/endpoints.js';
import { OPEN_FIELDS } from '../../../core/envelope/open-fields.js';
import type { Candidate } from '../../completion/hints.js';
import { describeWithDefault } from '../../help/help.js';
import { SETTINGS } from '../../config/settings.js';

export function settingCandidates(): Candidate[] {
  return [
    ...Object.entries(SETTINGS).map(([name, spec]) => ({
      name,
      description: describeWithDefault(spec.describe),
    })),
    ...Object.entries(ENDPOINTS).map(([op, endpoint]) => ({
      name: `paths.${op}`,
      description: `path of ${op} (default: ${endpoint.path})`,
    })),
    ...OPEN_FIELDS.map((field) => ({
      name: `sandbox.accept.${field}`,
      description: `values of ${field} the local sandbox accepts beyond its own list`,
    })),
  ];
}
