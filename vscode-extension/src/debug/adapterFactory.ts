import * as vscode from 'vscode';
import { ServerController } from '../server/controller';

/** Starts `abl dap` with the same Python and package (or installed `abl`) as the language server. */
export class AblDebugAdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  constructor(
    private readonly server: ServerController,
    private readonly output: vscode.OutputChannel,
  ) {}

  async createDebugAdapterDescriptor(): Promise<vscode.DebugAdapterDescriptor> {
    const abl = await this.server.ablCommand();
    if ('message' in abl) {
      this.output.appendLine(`The debugger cannot start: ${abl.message}`);
      throw new Error(abl.message);
    }
    this.output.appendLine(`Starting the debug adapter: ${abl.description}, abl dap`);
    // The environment given is added to the editor's own.
    return new vscode.DebugAdapterExecutable(abl.executable, [...abl.args, 'dap'], { env: { ...abl.env } });
  }
}
