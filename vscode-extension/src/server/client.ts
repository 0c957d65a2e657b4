import {
  ClientCapabilities,
  DocumentSelector,
  DynamicFeature,
  ExecuteCommandRegistrationOptions,
  ExecuteCommandRequest,
  FeatureState,
  InitializeParams,
  LanguageClient,
  RegistrationData,
  RegistrationType,
  ServerCapabilities,
  StaticFeature,
} from 'vscode-languageclient/node';
import { isCleanExit } from './exitMessage';

/** Commands the server names (in code lenses, or in its `executeCommandProvider`) that the
 * extension implements itself: `abl.runAgent` opens the run panel, `abl.debugAgent` starts a
 * debug session, `abl.showHandoffsIn` the references peek. The server is told them
 * (`initializationOptions.clientCommands`), so it sends the lenses only an editor with a run
 * panel or a debugger can run. */
export const CLIENT_COMMANDS: ReadonlySet<string> = new Set(['abl.runAgent', 'abl.debugAgent', 'abl.showHandoffsIn']);

/** The language client, except that it leaves the extension's own commands alone: by default it
 * registers a forwarding command for each command the server executes, and registering a
 * command id twice fails. */
export class AblLanguageClient extends LanguageClient {
  // Called from LanguageClient's constructor too, so it must not rely on instance fields.
  override registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
    super.registerFeature(isExecuteCommandFeature(feature) ? new ServerCommandsOnly(feature) : feature);
  }

  // The client logs every exit of the server process as an error, also the clean one that
  // ends each stop and restart.
  override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    if (isCleanExit(message)) {
      this.info(message, data, false);
      return;
    }
    super.error(message, data, showNotification);
  }
}

function isExecuteCommandFeature(feature: StaticFeature | DynamicFeature<unknown>): feature is DynamicFeature<ExecuteCommandRegistrationOptions> {
  return 'registrationType' in feature && feature.registrationType.method === ExecuteCommandRequest.method;
}

function serverOnly(commands: readonly string[]): string[] {
  return commands.filter((command) => !CLIENT_COMMANDS.has(command));
}

/** The client's execute-command feature, shown the server's commands minus the client's own. */
class ServerCommandsOnly implements DynamicFeature<ExecuteCommandRegistrationOptions> {
  constructor(private readonly inner: DynamicFeature<ExecuteCommandRegistrationOptions>) {}

  get registrationType(): RegistrationType<ExecuteCommandRegistrationOptions> {
    return this.inner.registrationType;
  }

  fillInitializeParams(params: InitializeParams): void {
    this.inner.fillInitializeParams?.(params);
  }

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    this.inner.fillClientCapabilities(capabilities);
  }

  preInitialize(capabilities: ServerCapabilities, selector: DocumentSelector | undefined): void {
    this.inner.preInitialize?.(capabilities, selector);
  }

  initialize(capabilities: ServerCapabilities, selector: DocumentSelector | undefined): void {
    const provider = capabilities.executeCommandProvider;
    this.inner.initialize(provider ? { ...capabilities, executeCommandProvider: { ...provider, commands: serverOnly(provider.commands) } } : capabilities, selector);
  }

  getState(): FeatureState {
    return this.inner.getState();
  }

  register(data: RegistrationData<ExecuteCommandRegistrationOptions>): void {
    this.inner.register({ ...data, registerOptions: { ...data.registerOptions, commands: serverOnly(data.registerOptions.commands) } });
  }

  unregister(id: string): void {
    this.inner.unregister(id);
  }

  clear(): void {
    this.inner.clear();
  }
}
