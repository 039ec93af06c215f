/** Users, passwords (argon2id), personal access tokens, first-run setup and boot seeding of the admin. */
import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import * as argon2 from 'argon2';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { DomainError } from '../../platform/errors/domain-error';
import { errorInfo } from '../../platform/logging/error-info';
import { ClusterBus } from '../cluster/cluster-bus';
import { AccessToken } from './access-token.entity';
import { User, type AuthUser } from './user.entity';

/** Records a user owns, in the order they can be deleted (RESTRICT keys: projects → packs → agents → models). */
const OWNED: Array<[table: string, one: string, many: string]> = [
  ['projects', 'project', 'projects'],
  ['workflows', 'pack', 'packs'],
  ['agents', 'agent', 'agents'],
  ['skills', 'skill', 'skills'],
  ['models', 'model', 'models'],
];

const ARGON: argon2.HashOptions & { raw?: false } = {
  type: argon2.argon2id,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
};
const INVALID = () => new DomainError('auth.invalid_credentials', 'Wrong username or password.');
const TOKEN_PREFIX = 'aws_';

export const toAuthUser = (u: User): AuthUser => ({ id: u.id, username: u.username, is_admin: u.is_admin });
const hashToken = (t: string) => createHash('sha256').update(t).digest('hex');

/**
 * Bearer tokens seen in the last few seconds, by hash: a client sending requests back to back costs one
 * lookup per TOKEN_CACHE_MS instead of one per request. Revoking a token, changing a user's password or
 * role, or deleting a user evicts at once: in this process, and in cluster mode in every process, by an
 * AUTH_EVICT_CHANNEL notification (docs/OPERATIONS.md, "Limits"), which every process also treats as
 * "clear the cache" when its notification connection comes back (notifications in between are lost).
 */
const TOKEN_CACHE_MS = 5_000;
const TOKEN_CACHE_SIZE = 10_000;
export const AUTH_EVICT_CHANNEL = 'auth_evict';
/** how long a change waits to hear its own eviction notice (so the other processes have theirs too) */
const EVICT_ECHO_MS = 2_000;

/** An eviction notice: one token (by id) or, without `token_id`, the whole cache; `nonce` names the sender's notice. */
export interface EvictNotice {
  token_id?: number;
  nonce?: string;
}

/** The notice as sent, and as read back (anything unreadable evicts everything). */
export const encodeEviction = (n: EvictNotice) => JSON.stringify(n);
export function decodeEviction(payload: string): EvictNotice {
  try {
    const v = JSON.parse(payload) as unknown;
    if (!v || typeof v !== 'object') return {};
    const { token_id, nonce } = v as Record<string, unknown>;
    return {
      ...(typeof token_id === 'number' && Number.isInteger(token_id) ? { token_id } : {}),
      ...(typeof nonce === 'string' ? { nonce } : {}),
    };
  } catch {
    return {};
  }
}
interface CachedToken {
  tokenId: number;
  user: AuthUser;
  until: number;
}

@Injectable()
export class AuthService implements OnModuleDestroy {
  private readonly logger = new Logger('Auth');
  /** A real hash to verify against for unknown users, so timing does not reveal who exists. */
  private dummyHash: Promise<string> = argon2.hash(randomBytes(16).toString('hex'), ARGON);

  private readonly tokenCache = new Map<string, CachedToken>();
  /** Bumped by every eviction, so a lookup that raced a revoke does not cache what it read before it. */
  private tokenGeneration = 0;
  /** cluster mode: this process's eviction notices not yet heard back, by nonce */
  private readonly echoes = new Map<string, () => void>();
  private readonly unlisten: Array<() => void> = [];

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly bus: ClusterBus,
  ) {
    if (bus.enabled) {
      this.unlisten.push(
        bus.on(AUTH_EVICT_CHANNEL, (payload) => {
          const notice = decodeEviction(payload);
          this.evictHere(notice.token_id);
          if (notice.nonce) this.echoes.get(notice.nonce)?.();
        }),
        bus.onReconnect(() => this.evictHere()),
      );
    }
  }

  onModuleDestroy() {
    for (const off of this.unlisten) off();
  }

  /** Forgets one cached token (by id), or all of them; a lookup in flight then does not cache what it read. */
  private evictHere(tokenId?: number) {
    if (tokenId === undefined) this.tokenCache.clear();
    else for (const [hash, c] of this.tokenCache) if (c.tokenId === tokenId) this.tokenCache.delete(hash);
    this.tokenGeneration++;
  }

  /**
   * After a committed change to tokens or users: evicts here, then (cluster mode) tells every process and
   * waits — at most EVICT_ECHO_MS — to hear the notice back, so by the time the change is answered the
   * other processes, which Postgres told at the same moment, have dropped what they cached. A notice that
   * cannot be sent is logged: the others' caches then expire within TOKEN_CACHE_MS.
   */
  private async evictEverywhere(tokenId?: number) {
    this.evictHere(tokenId);
    if (!this.bus.enabled) return;
    const nonce = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const heard = new Promise<void>((resolve) => {
      this.echoes.set(nonce, resolve);
      timer = setTimeout(resolve, EVICT_ECHO_MS);
    });
    try {
      await this.bus.notify(AUTH_EVICT_CHANNEL, encodeEviction({ token_id: tokenId, nonce }));
      await heard;
    } catch (err) {
      this.logger.warn({ err: errorInfo(err) }, 'could not tell the other processes to drop cached tokens');
    } finally {
      clearTimeout(timer);
      this.echoes.delete(nonce);
    }
  }

  private get users() {
    return this.ds.getRepository(User);
  }

  async findUser(id: number): Promise<AuthUser | null> {
    const u = await this.users.findOneBy({ id });
    return u ? toAuthUser(u) : null;
  }

  async verifyCredentials(username: string, password: string): Promise<AuthUser> {
    const u = await this.users
      .createQueryBuilder('u')
      .addSelect('u.password_hash')
      .where('lower(u.username) = lower(:username)', { username })
      .getOne();
    if (!u) {
      await argon2.verify(await this.dummyHash, password).catch(() => false);
      throw INVALID();
    }
    const ok = await argon2.verify(u.password_hash, password).catch(() => false);
    if (!ok) throw INVALID();
    return toAuthUser(u);
  }

  /** True while no user exists (first run). */
  async setupNeeded(): Promise<boolean> {
    return !(await this.users.exists());
  }

  /** First-run: creates the first (admin) user; 409 once any user exists. */
  async setup(username: string, password: string): Promise<AuthUser> {
    const hash = await argon2.hash(password, ARGON);
    return this.ds.transaction(async (m) => {
      await m.query('LOCK TABLE users IN EXCLUSIVE MODE');
      const count = await m.getRepository(User).count();
      if (count > 0) throw new DomainError('setup.already_done', 'Setup is already done: log in instead.');
      const u = await m
        .getRepository(User)
        .save(m.getRepository(User).create({ username, password_hash: hash, is_admin: true }));
      return toAuthUser(u);
    });
  }

  async createUser(username: string, password: string, isAdmin: boolean): Promise<AuthUser> {
    const exists = await this.users
      .createQueryBuilder('u')
      .where('lower(u.username) = lower(:username)', { username })
      .getExists();
    if (exists)
      throw new DomainError('record.duplicate', `A user named "${username}" already exists.`, [
        { field: 'username', message: 'is taken' },
      ]);
    const u = await this.users.save(
      this.users.create({ username, password_hash: await argon2.hash(password, ARGON), is_admin: isAdmin }),
    );
    return toAuthUser(u);
  }

  listUsers() {
    return this.users.find({ order: { id: 'ASC' } });
  }

  /**
   * Deletes a user (docs/API.md "Auth"). A user who owns records is `409 user.owns_records` naming what
   * they own, unless `cascade` confirms deleting those records too — in one transaction, in the order the
   * RESTRICT keys need (projects, packs, agents, skills, models). A user with a turn running is `409`.
   * The user's row lock also holds off turn admission (run-admission.ts) meanwhile.
   */
  async deleteUser(actor: AuthUser, id: number, cascade = false) {
    if (actor.id === id) throw new DomainError('conflict', 'You cannot delete your own account.');
    await this.ds.transaction(async (m) => {
      const [user]: Array<{ username: string }> = await m.query('SELECT username FROM users WHERE id = $1 FOR UPDATE', [
        id,
      ]);
      if (!user) throw new DomainError('not_found', 'User not found');
      const [owned]: Array<Record<string, number>> = await m.query(
        `SELECT ${OWNED.map(([table]) => `(SELECT count(*) FROM ${table} WHERE owner_id = $1)::int AS ${table}`).join(', ')},
                (SELECT count(*) FROM runs WHERE owner_id = $1 AND state = 'running')::int AS running`,
        [id],
      );
      if (owned.running)
        throw new DomainError(
          'conflict',
          `User ${user.username} has ${owned.running} turn(s) running: cancel them, or delete the user when they end.`,
        );
      const parts = OWNED.filter(([table]) => owned[table] > 0).map(
        ([table, one, many]) => `${owned[table]} ${owned[table] === 1 ? one : many}`,
      );
      if (parts.length && !cascade) {
        throw new DomainError(
          'user.owns_records',
          `User ${user.username} owns ${parts.join(', ')}. Delete with ?cascade=true to delete these records with the user.`,
        );
      }
      for (const [table] of OWNED) if (owned[table]) await m.query(`DELETE FROM ${table} WHERE owner_id = $1`, [id]);
      await m.query('DELETE FROM users WHERE id = $1', [id]);
    });
    await this.evictEverywhere();
  }

  /**
   * An admin changes a user (docs/API.md "Auth"): a new password ends that user's sessions and revokes
   * their access tokens (a reset locks out whoever had them); the admin role can be granted or taken,
   * but not by an admin from themselves (so there is always one left).
   */
  async updateUser(actor: AuthUser, id: number, patch: { password?: string; is_admin?: boolean }) {
    if (actor.id === id && patch.is_admin === false)
      throw new DomainError('conflict', 'You cannot take away your own administrator role.');
    const row = await this.ds.transaction(async (m) => {
      const user = await m.getRepository(User).findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!user) throw new DomainError('not_found', 'User not found');
      const change: Partial<User> = {};
      if (patch.is_admin !== undefined) change.is_admin = patch.is_admin;
      if (patch.password !== undefined) {
        change.password_hash = await argon2.hash(patch.password, ARGON);
        await m.query('DELETE FROM sessions WHERE user_id = $1', [id]);
        await m.query('DELETE FROM access_tokens WHERE user_id = $1', [id]);
      }
      if (Object.keys(change).length) await m.getRepository(User).update({ id }, change);
      return { ...user, ...change };
    });
    await this.evictEverywhere();
    return { id: row.id, username: row.username, is_admin: row.is_admin, created_at: row.created_at };
  }

  /** ADMIN_USERNAME/ADMIN_PASSWORD at boot: create the admin, or reset its password. */
  async seedAdmin(username: string | null, password: string | null) {
    if (!username || !password) return;
    if (password.length < 8) throw new Error('ADMIN_PASSWORD must be at least 8 characters');
    const hash = await argon2.hash(password, ARGON);
    const existing = await this.users
      .createQueryBuilder('u')
      .where('lower(u.username) = lower(:username)', { username })
      .getOne();
    if (existing) {
      await this.users.update({ id: existing.id }, { password_hash: hash, is_admin: true });
    } else {
      await this.users.save(this.users.create({ username, password_hash: hash, is_admin: true }));
      this.logger.log(`created admin user "${username}"`);
    }
  }

  // --- personal access tokens ---

  private get tokens() {
    return this.ds.getRepository(AccessToken);
  }

  async createToken(user: AuthUser, name: string) {
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const row = await this.tokens.save(this.tokens.create({ user_id: user.id, name, token_hash: hashToken(token) }));
    return { id: row.id, name: row.name, created_at: row.created_at, last_used_at: null, token };
  }

  listTokens(user: AuthUser) {
    return this.tokens.find({ where: { user_id: user.id }, order: { id: 'DESC' } });
  }

  async revokeToken(user: AuthUser, id: number) {
    const res = await this.tokens.delete({ id, user_id: user.id });
    if (!res.affected) {
      this.evictHere(id);
      throw new DomainError('not_found', 'Token not found');
    }
    await this.evictEverywhere(id);
  }

  async userForToken(token: string): Promise<AuthUser | null> {
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
    const hash = hashToken(token);
    const now = Date.now();
    const cached = this.tokenCache.get(hash);
    if (cached && cached.until > now) return cached.user;
    const generation = this.tokenGeneration;
    const row = await this.tokens
      .createQueryBuilder('t')
      .innerJoinAndMapOne('t.user', User, 'u', 'u.id = t.user_id')
      .where('t.token_hash = :h', { h: hash })
      .getOne();
    const user = (row as { user?: User } | null)?.user; // mapped by innerJoinAndMapOne above
    if (!row || !user) return null;
    // last_used_at at minute precision: avoids a write per request under load.
    if (!row.last_used_at || Date.now() - row.last_used_at.getTime() > 60_000) {
      void this.tokens.update({ id: row.id }, { last_used_at: new Date() }).catch(() => undefined);
    }
    const authUser = toAuthUser(user);
    this.tokenCache.delete(hash);
    if (generation === this.tokenGeneration)
      this.tokenCache.set(hash, { tokenId: row.id, user: authUser, until: now + TOKEN_CACHE_MS });
    if (this.tokenCache.size > TOKEN_CACHE_SIZE) this.tokenCache.delete(this.tokenCache.keys().next().value as string);
    return authUser;
  }
}
