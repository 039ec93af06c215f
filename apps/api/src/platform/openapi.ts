/**
 * The OpenAPI 3.1 document, generated from controllers and DTOs. Post-processing in one place:
 * every operation documents problem+json errors, and 3.0-style `nullable` becomes 3.1 type unions.
 */
import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';

const PROBLEM_SCHEMA = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
    request_id: { type: 'string' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: { field: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

function toJsonSchema31(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema31);
  if (!node || typeof node !== 'object') return node;
  const obj: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) obj[k] = toJsonSchema31(v);
  if (obj.nullable === true) {
    delete obj.nullable;
    // a nullable reference first: Nest writes it as `type: 'object'` + `allOf: [$ref]`, and a type union
    // beside the allOf would make generated clients (libs/contracts) read it as never null
    if (obj.$ref || obj.allOf || obj.oneOf) {
      const { description, type: _type, ...rest } = obj;
      return { ...(description ? { description } : {}), oneOf: [rest, { type: 'null' }] };
    }
    if (typeof obj.type === 'string') obj.type = [obj.type, 'null'];
  } else if (obj.nullable === false) delete obj.nullable;
  return obj;
}

interface OperationLike {
  responses?: Record<string, unknown>;
  security?: unknown[];
  summary?: string;
  operationId?: string;
  'x-public'?: boolean;
}

/** `Workflows_saveGraph` → "Workflows: save graph" (a fallback when a handler has no @ApiOperation). */
function humanize(operationId: string): string {
  const [tag, method = ''] = operationId.split('_');
  return `${tag}: ${method
    .replace(/([A-Z])/g, ' $1')
    .toLowerCase()
    .trim()}`;
}

export function buildOpenApi(app: INestApplication, version: string): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Agentic Workflow Service')
    .setDescription(
      'Run AI agents through staged workflows (packs). Studio REST under /studio/api, agent chat under /agent ' +
        '(JSON, or server-sent events on GET /agent/stream). Errors are application/problem+json (RFC 9457).',
    )
    .setVersion(version)
    .setLicense('Proprietary', 'https://example.invalid/license')
    .addServer('/')
    .addCookieAuth('sid', { type: 'apiKey', in: 'cookie', name: 'sid' }, 'cookie')
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'Personal access token from POST /auth/tokens' },
      'bearer',
    )
    .build();
  const doc = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (c, m) => `${c.replace(/Controller$/, '')}_${m}`,
  });
  doc.components = doc.components ?? {};
  doc.components.schemas = { ...(doc.components.schemas ?? {}), Problem: PROBLEM_SCHEMA as never };
  const problemRef = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };
  // Login (cookie) or a bearer token everywhere, except operations marked @Public() (x-public).
  doc.security = [{ cookie: [] }, { bearer: [] }];
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item) as Array<OperationLike | undefined>) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      if (op['x-public']) op.security = [{}, { cookie: [] }, { bearer: [] }];
      else delete op.security;
      if (!op.summary && op.operationId) op.summary = humanize(op.operationId);
      op.responses = op.responses ?? {};
      op.responses['4XX'] = op.responses['4XX'] ?? { description: 'Client error (problem+json)', content: problemRef };
      op.responses['5XX'] = op.responses['5XX'] ?? { description: 'Server error (problem+json)', content: problemRef };
    }
  }
  return toJsonSchema31(doc) as OpenAPIObject;
}

export function mountOpenApi(app: INestApplication, doc: OpenAPIObject) {
  SwaggerModule.setup('docs', app, doc, {
    jsonDocumentUrl: 'openapi.json',
    useGlobalPrefix: false,
    customSiteTitle: 'Agentic Workflow Service API',
    swaggerOptions: { validatorUrl: null },
  });
}
