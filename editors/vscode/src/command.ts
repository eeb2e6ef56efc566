// The command that starts the language server, read from the `lmml.server` settings. No
// import of `vscode` here (only its types), so the rules can be run outside the editor.

import type { WorkspaceConfiguration } from "vscode";

/** What the settings are read through: `vscode.WorkspaceConfiguration` has it. */
export type Settings = Pick<WorkspaceConfiguration, "get">;

/** The places a setting may name by variable, as VS Code's own settings do. */
export interface Places {
  /** The first workspace folder, or undefined when no folder is open. */
  workspaceFolder: string | undefined;
  /** The user's home folder. */
  userHome: string;
}

/** *value* with `${workspaceFolder}` and `${userHome}` put in (VS Code does not expand
 * them in an extension's settings); a variable with no value is left as written, so the
 * error on starting names it. */
export function expandVariables(value: string, places: Places): string {
  return value.replace(/\$\{(workspaceFolder|userHome)\}/g, (variable, name: string) => {
    const place = name === "workspaceFolder" ? places.workspaceFolder : places.userHome;
    return place ?? variable;
  });
}

/** The command that starts the server: `lmml.server.command`, else the configured Python
 * running the package, else `lmml lsp` from the PATH. */
export function serverCommand(
  config: Settings,
  places: Places,
): { command: string; args: string[] } {
  const command = config.get<string[]>("command", []).map((part) => expandVariables(part, places));
  if (command.length > 0) {
    return { command: command[0], args: command.slice(1) };
  }
  const python = expandVariables(config.get<string>("pythonPath", ""), places);
  if (python) {
    return { command: python, args: ["-m", "lmml_mdit", "lsp"] };
  }
  return { command: "lmml", args: ["lsp"] };
}
