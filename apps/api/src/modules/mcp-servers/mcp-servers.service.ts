/**
 * MCP tool servers: owner-scoped records (name, Streamable HTTP URL, sealed headers), CRUD scoped by
 * OwnedRecords, the MODEL_HOSTS policy applied to `url` at save time (and by the client on every call),
 * header values sealed at rest and never returned. Lists a server's tools through the SDK client and
 * opens the runtime's ExternalTools port for a user (mcp-tool-source.ts). docs/decisions/mcp.md.
 */
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, QueryFailedError, type EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { SecretBox } from '../../platform/crypto/secret-box';
import { DomainError, invalid, type FieldProblem } from '../../platform/errors/domain-error';
import { assertUrlAllowed, HostPolicyError } from '../../platform/net/host-policy';
import { OwnedRecords } from '../../platform/ownership/owned-records';
import type { AuthUser } from '../auth/user.entity';
import type { ExternalTools } from '../runtime/runtime.types';
import {
  MAX_HEADER_VALUE,
  MAX_HEADERS,
  type CreateMcpServerDto,
  type McpServerView,
  type McpToolListView,
  type UpdateMcpServerDto,
} from './dto/mcp-server.dto';
import { McpCallError, McpConnection, type McpClientOptions, type McpEndpoint } from './mcp-client';
import { McpServer } from './mcp-server.entity';
import { McpToolSource } from './mcp-tool-source';

type Row = McpServer & { headers_sealed: string | null };

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;
/** Headers the transport sets itself. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'connection',
  'transfer-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

export function toMcpServerView(row: Row): McpServerView {
  const { headers_sealed: _sealed, ...rest } = row;
  return rest as unknown as McpServerView;
}

@Injectable()
export class McpServersService {
  readonly records: OwnedRecords<McpServer>;
  private readonly box: SecretBox;

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.records = new OwnedRecords(ds.getRepository(McpServer), 'MCP server');
    this.box = new SecretBox(config.appSecret, 'mcp-server-headers');
  }

  get clientOptions(): McpClientOptions {
    return { hostMode: this.config.modelHosts, timeoutMs: this.config.mcpToolTimeoutMs, version: this.config.version };
  }

  async list(user: AuthUser): Promise<McpServerView[]> {
    const rows = await this.records.visible(user).orderBy('r.name', 'ASC').addOrderBy('r.id', 'ASC').getMany();
    return rows.map((r) => toMcpServerView(r as Row));
  }

  async get(user: AuthUser, id: number, m?: EntityManager): Promise<McpServerView> {
    return toMcpServerView(await this.records.findVisible(user, id, m));
  }

  async create(user: AuthUser, dto: CreateMcpServerDto): Promise<McpServerView> {
    const url = this.checkUrl(dto.url);
    const headers = checkHeaders(dto.headers);
    const repo = this.records.repository();
    try {
      const saved = await repo.save(
        repo.create({
          owner_id: user.id,
          is_system: false,
          name: dto.name,
          url,
          header_names: Object.keys(headers),
          headers_sealed: this.seal(headers),
        } as Partial<Row>),
      );
      return this.get(user, saved.id);
    } catch (e) {
      throw isUniqueViolation(e) ? duplicateName(dto.name) : e;
    }
  }

  async update(user: AuthUser, id: number, dto: UpdateMcpServerDto): Promise<McpServerView> {
    try {
      return await this.ds.transaction(async (m) => {
        await this.records.findWritable(user, id, m);
        const patch: Partial<Row> = {};
        if (dto.name != null) patch.name = dto.name;
        if (dto.url != null) patch.url = this.checkUrl(dto.url);
        if (dto.headers !== undefined) {
          const headers = checkHeaders(dto.headers);
          patch.header_names = Object.keys(headers);
          patch.headers_sealed = this.seal(headers);
        }
        if (Object.keys(patch).length) await this.records.repository(m).update({ id }, patch);
        return this.get(user, id, m);
      });
    } catch (e) {
      throw isUniqueViolation(e) ? duplicateName(dto.name ?? '') : e;
    }
  }

  /** Allowlists name tools by server name (strings): a deleted server's tools are simply not offered. */
  async remove(user: AuthUser, id: number): Promise<void> {
    await this.records.findWritable(user, id);
    await this.records.repository().delete({ id });
  }

  /** Connects, reads the tool list, closes. 502 `mcp.unreachable` / 504 `mcp.timeout` / 400 `mcp.refused`. */
  async listTools(user: AuthUser, id: number): Promise<McpToolListView> {
    await this.records.findVisible(user, id);
    const [endpoint] = await this.endpoints(user, { id });
    let conn: McpConnection | null = null;
    try {
      conn = await McpConnection.open(endpoint, this.clientOptions);
      const tools = await conn.listTools();
      return {
        server: endpoint.name,
        tools: tools.map((t) => ({
          name: t.name,
          qualified_name: `${endpoint.name}/${t.name}`,
          description: t.description ?? '',
          input_schema: t.inputSchema,
        })),
      };
    } catch (e) {
      if (e instanceof McpCallError) throw asDomainError(e);
      throw e;
    } finally {
      await conn?.close().catch(() => undefined);
    }
  }

  /** The runtime's ExternalTools port for a turn of `user` (own servers win over system ones of the same name). */
  toolsFor(user: AuthUser): ExternalTools {
    return new McpToolSource((names) => this.endpoints(user, { names }), this.clientOptions);
  }

  /** Visible servers with their headers opened, by id or by names. Only inside the server process. */
  async endpoints(user: AuthUser, by: { id?: number; names?: string[] }): Promise<McpEndpoint[]> {
    const q = this.records.visible(user).addSelect('r.headers_sealed').orderBy('r.is_system', 'ASC');
    if (by.id !== undefined) q.andWhere('r.id = :id', { id: by.id });
    if (by.names) q.andWhere('r.name IN (:...names)', { names: by.names.length ? by.names : [''] });
    const rows = (await q.getMany()) as Row[];
    const seen = new Set<string>();
    return rows.flatMap((r) => {
      if (seen.has(r.name)) return [];
      seen.add(r.name);
      return [{ name: r.name, url: r.url, headers: this.open(r.headers_sealed) }];
    });
  }

  private checkUrl(raw: string): string {
    const url = raw.trim();
    try {
      assertUrlAllowed(url, this.config.modelHosts);
    } catch (e) {
      if (e instanceof HostPolicyError) throw invalid([{ field: 'url', message: e.message }]);
      throw e;
    }
    return url;
  }

  private seal(headers: Record<string, string>): string | null {
    return Object.keys(headers).length ? this.box.seal(JSON.stringify(headers)) : null;
  }

  private open(sealed: string | null): Record<string, string> {
    return sealed ? (JSON.parse(this.box.open(sealed)) as Record<string, string>) : {};
  }
}

/** Header names are HTTP tokens, values single-line strings; at most MAX_HEADERS; transport headers refused. */
export function checkHeaders(input: Record<string, unknown> | null | undefined): Record<string, string> {
  if (input == null) return {};
  const problems: FieldProblem[] = [];
  const entries = Object.entries(input);
  if (entries.length > MAX_HEADERS) problems.push({ field: 'headers', message: `at most ${MAX_HEADERS} headers` });
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [name, value] of entries.slice(0, MAX_HEADERS)) {
    const field = `headers.${name.slice(0, 100)}`;
    if (!HEADER_NAME.test(name)) problems.push({ field, message: 'is not a valid header name' });
    else if (RESERVED_HEADERS.has(name.toLowerCase()))
      problems.push({ field, message: 'is set by the MCP transport itself' });
    else if (seen.has(name.toLowerCase())) problems.push({ field, message: 'is given twice' });
    else if (typeof value !== 'string') problems.push({ field, message: 'must be a string' });
    else if (value.length > MAX_HEADER_VALUE || /[\r\n\0]/.test(value))
      problems.push({ field, message: `must be one line of at most ${MAX_HEADER_VALUE} characters` });
    else out[name] = value;
    seen.add(name.toLowerCase());
  }
  if (problems.length) throw invalid(problems);
  return out;
}

function asDomainError(e: McpCallError): DomainError {
  const code = e.kind === 'timeout' ? 'mcp.timeout' : e.kind === 'refused' ? 'mcp.refused' : 'mcp.unreachable';
  return new DomainError(code, e.message);
}

function duplicateName(name: string) {
  return new DomainError('record.duplicate', `You already have an MCP server named "${name}".`, [
    { field: 'name', message: 'is taken' },
  ]);
}

function isUniqueViolation(e: unknown) {
  return e instanceof QueryFailedError && (e as unknown as { code?: string }).code === '23505';
}
