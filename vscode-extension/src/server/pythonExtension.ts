import * as vscode from 'vscode';

/** The small part of the Python extension's API used here: the interpreter the user selected.
 * Typed by hand because the extension is optional and its API package is not needed for it. */
interface PythonApi {
  readonly environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { readonly path: string };
    resolveEnvironment(path: string): Promise<{ readonly executable: { readonly uri?: vscode.Uri } } | undefined>;
    readonly onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
  };
}

const PYTHON_EXTENSION_ID = 'ms-python.python';

async function pythonApi(): Promise<PythonApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION_ID);
  if (extension === undefined) {
    return undefined;
  }
  return extension.isActive ? extension.exports : await extension.activate();
}

/** The interpreter selected in the Python extension for `resource`, when it is installed. */
export async function selectedInterpreter(resource: vscode.Uri | undefined): Promise<string | undefined> {
  const environments = (await pythonApi())?.environments;
  if (environments === undefined) {
    return undefined;
  }
  const active = environments.getActiveEnvironmentPath(resource);
  const resolved = await environments.resolveEnvironment(active.path);
  return resolved?.executable.uri?.fsPath ?? active.path;
}

/** Calls `listener` when the user selects another interpreter in the Python extension. */
export async function onInterpreterChange(listener: () => void): Promise<vscode.Disposable | undefined> {
  return (await pythonApi())?.environments?.onDidChangeActiveEnvironmentPath(listener);
}
