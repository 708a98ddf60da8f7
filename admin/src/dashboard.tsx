import { useEffect, useState } from 'react';
import { Title, usePermissions } from 'react-admin';
import { Card, CardContent, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { api } from './http.ts';
import type { Me } from './auth-provider.ts';

interface Group {
  key: Record<string, string>;
  count: number;
  sum?: { amount?: number };
}

/** A bar chart as SVG (no chart library: a few rectangles, named for screen readers). */
function Bars({ label, values, months }: { label: string; values: number[]; months: string[] }) {
  const max = Math.max(1, ...values);
  const width = 40 * Math.max(1, values.length);
  return (
    <figure style={{ margin: 0 }}>
      <figcaption>
        <Typography variant="subtitle1" component="h2">
          {label}
        </Typography>
      </figcaption>
      <svg role="img" aria-label={`${label} by month`} width={width} height={140} viewBox={`0 0 ${width} 140`}>
        {values.map((value, index) => {
          const height = (value / max) * 110;
          return (
            <g key={months[index]}>
              <rect
                data-month={months[index]}
                data-value={value}
                x={index * 40 + 6}
                y={120 - height}
                width={28}
                height={height}
                fill="#1565c0"
              />
              <text x={index * 40 + 20} y={135} fontSize={9} textAnchor="middle">
                {months[index]!.slice(2)}
              </text>
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

/** Orders by month of `createdAt`, count and amount (DECISIONS §20), from `/api/v2/orders/aggregate`. */
export function Dashboard() {
  const { permissions } = usePermissions<Me>();
  const [groups, setGroups] = useState<Group[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const query = new URLSearchParams({ groupBy: 'createdAt:month', measures: 'count,sum(amount)', limit: '24' });
    api<{ data: Group[] }>(`/api/v2/orders/aggregate?${query.toString()}`)
      .then((response) => setGroups(response.body.data))
      .catch((failure: Error) => setError(failure.message));
  }, []);
  // The group's one key (`createdAt:month`), its month's first instant or `YYYY-MM`: the month is its first 7 characters.
  const months = (groups ?? []).map((group) => String(Object.values(group.key)[0] ?? '').slice(0, 7));
  return (
    <Card>
      <Title title="Dashboard" />
      <CardContent>
        <Typography variant="h5" component="h1">
          Orders by month{permissions && !permissions.admin ? ' (yours)' : ''}
        </Typography>
        {error ? <p role="alert">{error}</p> : null}
        {groups ? (
          <>
            <div style={{ display: 'flex', gap: 32, flexWrap: 'wrap' }}>
              <Bars label="Orders" values={groups.map((group) => group.count)} months={months} />
              <Bars label="Amount" values={groups.map((group) => group.sum?.amount ?? 0)} months={months} />
            </div>
            <Table size="small" aria-label="Orders by month">
              <TableHead>
                <TableRow>
                  <TableCell component="th">Month</TableCell>
                  <TableCell component="th">Orders</TableCell>
                  <TableCell component="th">Amount</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {groups.map((group, index) => (
                  <TableRow key={months[index]}>
                    <TableCell>{months[index]}</TableCell>
                    <TableCell>{group.count}</TableCell>
                    <TableCell>{(group.sum?.amount ?? 0).toFixed(2)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </>
        ) : null}
      </CardContent>
    </Card>
  );
}
