import { Type, type Static } from 'typebox';
import { Link, Named, Nullable } from '../../core/http/schemas.ts';
import { REPORT_STATUSES, REPORT_TYPES } from './report.ts';

/** A date (`2026-01-31`) or a date-time with a zone; checked again as a real calendar date by the service. */
const DATE_OR_DATE_TIME = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2}))?$';

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
