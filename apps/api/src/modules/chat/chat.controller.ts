/** /agent: the HTTP face of the runtime — sync chat, the SSE stream with resume, demo, history, runs, status. */
import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  Sse,
  UseGuards,
  type MessageEvent,
} from '@nestjs/common';
import { ApiAcceptedResponse, ApiExtraModels, ApiHeader, ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import { SkipThrottle } from '@nestjs/throttler';
import type { Request } from 'express';
import { Observable } from 'rxjs';
import { APP_CONFIG, type AppConfig } from '../../platform/config/app-config';
import { DATABASE_RETRY_AFTER_S } from '../../platform/database/db-unavailable';
import { UUID_SOURCE } from '../../platform/database/db-id';
import { DomainError } from '../../platform/errors/domain-error';
import { isCrossSiteGet } from '../../platform/http/body';
import { CurrentUser, OptionalUser, Public } from '../auth/auth.decorators';
import { RateLimitGuard } from '../auth/auth.guards';
import type { AuthUser } from '../auth/user.entity';
import { RuntimeService } from '../runtime/runtime.service';
import type { TurnResult } from '../runtime/runtime.types';
import { ChatService, type StartedTurn } from './chat.service';
import {
  CancelView,
  ResumeView,
  ChatDto,
  ChatResponseView,
  DemoDto,
  MultitaskQueryDto,
  RunStreamQueryDto,
  DemoResponseView,
  HistoryQueryDto,
  HistoryView,
  RunListView,
  RunsQueryDto,
  RunView,
  StatusView,
  StreamQueryDto,
} from './dto/chat.dto';
import { STREAM_EVENT_DOC, StreamEventModels } from './dto/stream-events.dto';
import { RunHub } from './run-hub';
import { HistoryService } from './history.service';
import { RunRecovery } from './run-recovery.service';
import { RunApprovals } from './run-approvals.service';
import { ApprovalAcceptedView, ApprovalDecisionDto } from './dto/approval.dto';
import { RunsService } from './runs.service';
import { RunRerun } from './run-rerun.service';
import { RerunAcceptedView, RerunDto } from './dto/rerun.dto';
import { Heartbeats } from './heartbeats';
import { StreamSlots } from './stream-slots';

const LAST_EVENT_ID = new RegExp(`^(${UUID_SOURCE}):(\\d{1,9})$`, 'i');

function failIfError(turn: StartedTurn, r: TurnResult) {
  if (!r.error) return;
  const retry = r.error.code === 'outcome_not_stored' ? { 'Retry-After': String(DATABASE_RETRY_AFTER_S) } : undefined;
  throw new DomainError(`turn.${r.error.code}`, `${r.error.message} (run ${turn.runId})`, undefined, retry);
}

@ApiTags('agent')
@Controller('agent')
export class ChatController {
  constructor(
    private readonly chat: ChatService,
    private readonly hub: RunHub,
    private readonly runsService: RunsService,
    private readonly historyService: HistoryService,
    private readonly recovery: RunRecovery,
    private readonly approvals: RunApprovals,
    private readonly reruns: RunRerun,
    private readonly slots: StreamSlots,
    private readonly runtime: RuntimeService,
    private readonly heartbeats: Heartbeats,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Public()
  @Get('status')
  @ApiOkResponse({ type: StatusView })
  status() {
    return { ...this.runtime.describeDefault(), demo: true, version: this.config.version };
  }

  @Post('chat')
  @HttpCode(200)
  @ApiOkResponse({ type: ChatResponseView })
  async send(@CurrentUser() user: AuthUser, @Body() dto: ChatDto, @Query() q: MultitaskQueryDto) {
    const turn = await this.chat.startProjectTurn(user, { ...dto, multitask: dto.multitask ?? q.multitask }, 'chat');
    const r = await turn.result;
    failIfError(turn, r);
    return {
      run_id: turn.runId,
      reply: r.reply,
      project_slug: turn.project!.slug,
      domain: turn.pack.domain,
      stage: r.stage,
      pack_id: turn.pack.id,
      node_key: r.node_key,
      agent: r.agent,
      tool_calls: r.tool_calls,
      files_changed: r.files_changed.map(({ path, change }) => ({ path, change })),
      awaiting_gate: r.awaiting_gate,
      usage: r.usage,
      pending_approval: r.approval ?? null,
    };
  }

  @Public()
  @Post('demo')
  @HttpCode(200)
  @UseGuards(RateLimitGuard)
  @SkipThrottle({ client: true, user: true })
  @ApiOkResponse({ type: DemoResponseView })
  async demo(@Body() dto: DemoDto, @OptionalUser() user: AuthUser | null, @Req() req: Request) {
    const turn = await this.chat.startDemoTurn(dto, 'demo', user ? `u:${user.id}` : `ip:${req.ip}`);
    const r = await turn.result;
    failIfError(turn, r);
    return {
      reply: r.reply,
      domain: turn.pack.domain,
      stage: r.stage,
      agent: r.agent,
      tool_calls: r.tool_calls,
      provider: this.runtime.describeDefault().provider,
    };
  }

  @Public()
  @Sse('stream')
  @UseGuards(RateLimitGuard)
  @SkipThrottle({ client: true, user: true })
  @ApiProduces('text/event-stream')
  @ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    description: '`<run_id>:<seq>`: replay after seq, then tail live',
  })
  @ApiExtraModels(...StreamEventModels)
  @ApiOkResponse({ description: STREAM_EVENT_DOC, content: { 'text/event-stream': { schema: { type: 'string' } } } })
  async stream(
    @OptionalUser() user: AuthUser | null,
    @Query() q: StreamQueryDto,
    @Req() req: Request,
    @Headers('last-event-id') lastEventHeader?: string,
  ): Promise<Observable<MessageEvent>> {
    if (req.res) this.hub.trackResponse(req.res);
    const resume = lastEventHeader || q.last_event_id;
    let runId: string;
    let afterSeq = 0;
    if (resume) {
      const m = LAST_EVENT_ID.exec(resume.trim());
      if (!m)
        throw new DomainError('validation', 'Last-Event-ID must be <run_id>:<seq>.', [
          { field: 'last_event_id', message: 'must be <run_id>:<seq>' },
        ]);
      runId = (await this.chat.findRunFor(user, m[1])).id;
      afterSeq = Number(m[2]);
    } else if (q.project_slug) {
      if (!user)
        throw new DomainError('unauthorized', 'Log in to chat with a project (or omit project_slug for the demo).');
      if (isCrossSiteGet(req, this.config.allowedOrigins))
        throw new DomainError('origin.cross_site', 'A turn on a project cannot be started from another site.');
      const release = await this.slots.acquire(`u:${user.id}`);
      try {
        runId = (await this.chat.startProjectTurn(user, q, 'stream')).runId;
      } catch (e) {
        release();
        throw e;
      }
      return this.events(runId, 0, release);
    } else {
      const release = await this.slots.acquire(user ? `u:${user.id}` : `ip:${req.ip}`);
      try {
        runId = (await this.chat.startDemoTurn(q, 'stream', user ? `u:${user.id}` : `ip:${req.ip}`)).runId;
      } catch (e) {
        release();
        throw e;
      }
      return this.events(runId, 0, release);
    }
    return this.events(runId, afterSeq, await this.slots.acquire(user ? `u:${user.id}` : `ip:${req.ip}`));
  }

  /** The run's events after `afterSeq` as SSE messages, with comment heartbeats while quiet. */
  private events(runId: string, afterSeq: number, release: () => void): Observable<MessageEvent> {
    return new Observable<MessageEvent>((sub) => {
      let ended = false;
      let unsubscribe: () => void = () => undefined;
      const beat = this.heartbeats.add(() => sub.next({ comment: 'keepalive' }));
      this.hub
        .subscribe(
          runId,
          afterSeq,
          (e) => {
            beat.touch();
            sub.next({ id: `${runId}:${e.seq}`, type: e.event, data: e.data as object });
          },
          () => {
            ended = true;
            sub.complete();
          },
        )
        .then(
          (u) => (ended ? u() : (unsubscribe = u)),
          (err) => sub.error(err),
        );
      return () => {
        beat.remove();
        unsubscribe();
        release();
      };
    });
  }

  @Get('history/:slug')
  @ApiOkResponse({ type: HistoryView })
  history(@CurrentUser() user: AuthUser, @Param('slug') slug: string, @Query() q: HistoryQueryDto) {
    if (q.limit !== undefined && q.limit > 200)
      throw new DomainError('validation', 'limit is at most 200', [{ field: 'limit', message: 'must be at most 200' }]);
    return this.historyService.history(user, slug, q.before, q.limit);
  }

  @Get('runs')
  @ApiOkResponse({ type: RunListView })
  runs(@CurrentUser() user: AuthUser, @Query() q: RunsQueryDto) {
    return this.runsService.list(user, q);
  }

  @Get('runs/:id')
  @ApiOkResponse({ type: RunView })
  run(@CurrentUser() user: AuthUser, @Param('id') id: string) {
    return this.runsService.get(user, id);
  }

  /** One run's events (docs/API.md "Runs"): replayed after Last-Event-ID, then followed live until `close`. */
  @Public()
  @Sse('runs/:id/stream')
  @ApiProduces('text/event-stream')
  @ApiHeader({ name: 'Last-Event-ID', required: false, description: '`<run_id>:<seq>`: replay after seq' })
  @ApiOkResponse({ description: STREAM_EVENT_DOC, content: { 'text/event-stream': { schema: { type: 'string' } } } })
  async runStream(
    @OptionalUser() user: AuthUser | null,
    @Param('id') id: string,
    @Query() q: RunStreamQueryDto,
    @Req() req: Request,
    @Headers('last-event-id') lastEventHeader?: string,
  ): Promise<Observable<MessageEvent>> {
    if (req.res) this.hub.trackResponse(req.res);
    const runId = (await this.chat.findRunFor(user, id)).id;
    const resume = (lastEventHeader || q.last_event_id)?.trim();
    const m = resume ? LAST_EVENT_ID.exec(resume) : null;
    if (resume && (!m || m[1].toLowerCase() !== runId.toLowerCase()))
      throw new DomainError('validation', `Last-Event-ID must be ${runId}:<seq>.`, [
        { field: 'last_event_id', message: 'must be <run_id>:<seq> of this run' },
      ]);
    return this.events(runId, m ? Number(m[2]) : 0, await this.slots.acquire(user ? `u:${user.id}` : `ip:${req.ip}`));
  }

  @Post('runs/:id/resume')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: ResumeView })
  resume(@CurrentUser() user: AuthUser, @Param('id') id: string) {
    return this.recovery.resumeOnDemand(user, id);
  }

  /** Per-tool approval (docs/API.md): the decision on the run's pending call; the run goes on as the same run. */
  @Post('runs/:id/approvals/:call_id')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: ApprovalAcceptedView })
  approve(
    @CurrentUser() user: AuthUser,
    @Param('id') id: string,
    @Param('call_id') callId: string,
    @Body() dto: ApprovalDecisionDto,
  ) {
    return this.approvals.decide(user, id, callId, dto);
  }

  /** Rerun from a node (docs/API.md): a new run of the project starting at a node the finished run visited. */
  @Post('runs/:id/rerun')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: RerunAcceptedView })
  rerun(@CurrentUser() user: AuthUser, @Param('id') id: string, @Body() dto: RerunDto) {
    return this.reruns.rerun(user, id, dto);
  }

  @Post('runs/:id/cancel')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: CancelView })
  cancel(@CurrentUser() user: AuthUser, @Param('id') id: string) {
    return this.chat.cancel(user, id);
  }
}
