import { Type, type Static } from 'typebox';
import { Link, Named, Nullable } from '../../core/http/schemas.ts';
import { REPORT_STATUSES, REPORT_TYPES } from './report.ts';

/** A day of the Gregorian calendar, years 0000-9999: each month's length, and 29 February of leap years only. */
const MONTH_DAY = '(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1\\d|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)';
const LEAP_YEAR = '(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)';
const CALENDAR_DAY = `(?:\\d{4}-${MONTH_DAY}|${LEAP_YEAR}-02-29)`;
const TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,9})?)?';
const ZONE = '(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)';

/**
 * A date (`2026-01-31`) or a date-time with a zone, of a real calendar day and time: the pattern is the
 * whole rule (`2026-13-45` or `2026-02-29` do not match), and the service's parse (reports.service.ts)
 * agrees with it on every value it matches.
 */
const DATE_OR_DATE_TIME = `^${CALENDAR_DAY}(?:T${TIME}${ZONE})?$`;

export const GenerateReportInput = Type.Object(
  {
    type: Type.Enum([...REPORT_TYPES]),
    from: Type.Optional(
      Type.String({ pattern: DATE_OR_DATE_TIME, description: 'Inclusive start: a date or a date-time' }),
    ),
    to: Type.Optional(
      Type.String({ pattern: DATE_OR_DATE_TIME, description: 'Exclusive end; a bare date includes that whole day' }),
    ),
  },
  { additionalProperties: false },
);
export type GenerateReportInput = Static<typeof GenerateReportInput>;

export const ReportJobView = Named(
  'ReportJob',
  Type.Object({
    id: Type.Integer(),
    type: Type.Enum([...REPORT_TYPES]),
    params: Type.Object({ from: Nullable(Type.String()), to: Nullable(Type.String()) }),
    status: Type.Enum([...REPORT_STATUSES]),
    result: Type.Unknown({ description: 'The report once status is done, else null' }),
    error: Nullable(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    finishedAt: Nullable(Type.String({ format: 'date-time' })),
    _links: Type.Object({ self: Link }),
  }),
);
