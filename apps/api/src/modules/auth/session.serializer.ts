import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { PassportSerializer } from '@nestjs/passport';
import passport from 'passport';
import { AuthService } from './auth.service';
import type { AuthUser } from './user.entity';

type Fns = { _serializers: unknown[]; _deserializers: unknown[] };

/**
 * The session stores only the user id; the user is re-read per request so deletions take effect at once.
 * passport is a process-wide singleton: on shutdown we unregister our functions so an app started
 * later in the same process (restart tests) does not reach a closed database through them.
 */
@Injectable()
export class SessionSerializer extends PassportSerializer implements OnModuleDestroy {
  private readonly registered: [unknown, unknown];

  constructor(private readonly auth: AuthService) {
    super();
    const p = passport as unknown as Fns;
    this.registered = [p._serializers[p._serializers.length - 1], p._deserializers[p._deserializers.length - 1]];
  }

  onModuleDestroy() {
    const p = passport as unknown as Fns;
    p._serializers = p._serializers.filter((f) => f !== this.registered[0]);
    p._deserializers = p._deserializers.filter((f) => f !== this.registered[1]);
  }

  serializeUser(user: AuthUser, done: (err: unknown, id?: number) => void) {
    done(null, user.id);
  }

  deserializeUser(id: number, done: (err: unknown, user?: AuthUser | false) => void) {
    this.auth.findUser(id).then(
      (u) => done(null, u ?? false),
      (e) => done(e),
    );
  }
}
