import {
  context,
  defaultTextMapGetter,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';
import { KEPT_CONTEXT } from './propagators-from-env.ts';
import type { HttpClientSpan, TraceContext } from './tracing-types.ts';

/**
 * `url.full` as the semantic conventions ask: credentials in the URL become `REDACTED`, and so does every
 * query value (a receiver's URL often carries a token there); the names stay, to tell URLs apart.
 */
export function redactedUrl(url: URL): string {
  const shown = new URL(url.href);
  if (shown.username || shown.password) {
    shown.username = 'REDACTED';
    shown.password = 'REDACTED';
  }
  if (shown.search) {
    const names = [...shown.searchParams.keys()];
    shown.search = names.map((name) => `${encodeURIComponent(name)}=REDACTED`).join('&');
  }
  shown.hash = '';
  return shown.href;
}

/** The context a span starts under: `parent` (kept with an event) when given, else the active one. */
export function contextUnder(parent: TraceContext | undefined) {
  if (!parent) return context.active();
  const carrier: Record<string, string> = { traceparent: parent.traceparent };
  if (parent.tracestate) carrier.tracestate = parent.tracestate;
  return KEPT_CONTEXT.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
}

/**
 * A client span for one HTTP request (named by its method, as the conventions say), under `parent` (a
 * trace context kept with an event) or else the active context, and the `traceparent`/`tracestate`
 * headers naming it.
 */
export function startHttpClientSpan(tracer: Tracer, method: string, url: URL, parent?: TraceContext): HttpClientSpan {
  const under = contextUnder(parent);
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const span = tracer.startSpan(
    method,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR_HTTP_REQUEST_METHOD]: method,
        [ATTR_URL_FULL]: redactedUrl(url),
        [ATTR_SERVER_ADDRESS]: url.hostname,
        [ATTR_SERVER_PORT]: port,
      },
    },
    under,
  );
  const headers: Record<string, string> = {};
  propagation.inject(trace.setSpan(under, span), headers);
  return {
    headers,
    end(outcome) {
      if ('status' in outcome) {
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, outcome.status);
        if (outcome.status >= 400) {
          span.setAttribute(ATTR_ERROR_TYPE, String(outcome.status));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
      } else {
        span.setAttribute(ATTR_ERROR_TYPE, outcome.error);
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };
}
