"""Start-up, document sync, watched files, workspace folders and settings."""

from __future__ import annotations

import logging
import os
import uuid

from lsprotocol import types as lsp

from abl.ide import LARGE_FILE_BYTES, count
from abl.lsp.commands import client_commands
from abl.lsp.convert import uri_to_path
from abl.lsp.diagnostics import register_pull
from abl.lsp.documents import splice_changes
from abl.lsp.handlers import handler
from abl.lsp.server import AblServer
from abl.lsp.settings import Settings

log = logging.getLogger("abl.lsp")

WATCHED = ("**/*.abl", "**/project.json", "**/abl.lock", "**/abl.toml", "**/pyproject.toml")
CONFIG_FILES = ("abl.toml", "pyproject.toml")


@handler(lsp.INITIALIZE, lambda: None)
def initialize(ls: AblServer, params: lsp.InitializeParams) -> None:
    splice_changes(ls.workspace)
    caps = params.capabilities
    text = caps.text_document
    ls.pull_diagnostics = _pulls_and_refreshes(caps)
    completion = text.completion if text is not None else None
    item = completion.completion_item if completion is not None else None
    ls.snippets = bool(item is not None and item.snippet_support)
    if ls.pull_diagnostics:
        register_pull(ls)
    ls.client_commands = client_commands(params.initialization_options)
    if params.initialization_options:
        ls.settings = Settings.read(params.initialization_options)


@handler(lsp.INITIALIZED, lambda: None)
def initialized(ls: AblServer, params: lsp.InitializedParams) -> None:
    # Read the workspace's files now, while handling this message: any request after it
    # must see every file. What needs the client's answers runs afterwards.
    found = _add_folders(ls)
    ls.background(_after_initialized(ls, found))


@handler(lsp.TEXT_DOCUMENT_DID_OPEN, lambda: None)
def did_open(ls: AblServer, params: lsp.DidOpenTextDocumentParams) -> None:
    path = uri_to_path(params.text_document.uri)
    if path is None:
        return
    doc = ls.workspace.get_text_document(params.text_document.uri)
    ls.host.open(path, doc.source, params.text_document.version)
    ls.schedule()


@handler(lsp.TEXT_DOCUMENT_DID_CHANGE, lambda: None)
def did_change(ls: AblServer, params: lsp.DidChangeTextDocumentParams) -> None:
    path = uri_to_path(params.text_document.uri)
    if path is None:
        return
    doc = ls.workspace.get_text_document(params.text_document.uri)
    if len(doc.source) > LARGE_FILE_BYTES:
        return  # read again on save: parsing it on every keystroke would stall the editor
    ls.host.set_text(path, doc.source, params.text_document.version)
    ls.schedule()


@handler(lsp.TEXT_DOCUMENT_DID_SAVE, lambda: None)
def did_save(ls: AblServer, params: lsp.DidSaveTextDocumentParams) -> None:
    path = uri_to_path(params.text_document.uri)
    if path is None:
        return
    doc = ls.workspace.get_text_document(params.text_document.uri)
    ls.host.set_text(path, doc.source, doc.version)
    ls.schedule()


@handler(lsp.TEXT_DOCUMENT_DID_CLOSE, lambda: None)
def did_close(ls: AblServer, params: lsp.DidCloseTextDocumentParams) -> None:
    path = uri_to_path(params.text_document.uri)
    if path is None:
        return
    ls.host.close(path)
    ls.schedule()


@handler(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES, lambda: None)
def did_change_watched_files(ls: AblServer, params: lsp.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        path = uri_to_path(change.uri)
        if path is None:
            continue
        if os.path.basename(path) in CONFIG_FILES:
            ls.host.config_changed(path)
        elif change.type == lsp.FileChangeType.Deleted:
            ls.host.file_deleted(path)
        elif path.endswith(".abl"):
            ls.host.file_changed_on_disk(path)
    ls.schedule()


@handler(lsp.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS, lambda: None)
def did_change_folders(ls: AblServer, params: lsp.DidChangeWorkspaceFoldersParams) -> None:
    for folder in params.event.removed:
        path = uri_to_path(folder.uri)
        if path is not None:
            ls.host.remove_folder(path)
    for folder in params.event.added:
        path = uri_to_path(folder.uri)
        if path is not None:
            ls.host.add_folder(path)
    ls.schedule()


@handler(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION, lambda: None)
async def did_change_configuration(ls: AblServer, params: lsp.DidChangeConfigurationParams) -> None:
    if params.settings:
        _apply_settings(ls, Settings.read(params.settings))
    else:
        await _read_configuration(ls)


def _pulls_and_refreshes(caps: lsp.ClientCapabilities) -> bool:
    """Whether diagnostics are pulled: only by a client that can also be told to pull again
    (`workspace/diagnostic/refresh`). A change in one file changes the diagnostics of others,
    and a client that cannot be told so would keep theirs stale (Neovim 0.11 pulls without
    it); every other client gets them pushed, for open and unopened files alike."""
    text, workspace = caps.text_document, caps.workspace
    pulls = text is not None and text.diagnostic is not None
    diagnostics = workspace.diagnostics if workspace is not None else None
    return pulls and diagnostics is not None and bool(diagnostics.refresh_support)


async def _read_configuration(ls: AblServer) -> None:
    workspace = ls.client_capabilities.workspace
    if workspace is None or not workspace.configuration:
        return
    try:
        result = await ls.workspace_configuration_async(lsp.ConfigurationParams([lsp.ConfigurationItem(section="abl")]))
    except Exception:  # a client that fails this request keeps the settings it had
        log.exception("workspace/configuration failed")
        return
    if result:
        _apply_settings(ls, Settings.read(result[0]))


def _apply_settings(ls: AblServer, settings: Settings) -> None:
    ls.settings = settings
    if settings.unknown:
        ls.window_log_message(
            lsp.LogMessageParams(
                lsp.MessageType.Warning, "abl: unknown diagnostic codes in settings: " + ", ".join(settings.unknown)
            )
        )
    ls.republish_all()


async def _watch_files(ls: AblServer) -> None:
    workspace = ls.client_capabilities.workspace
    watched = workspace.did_change_watched_files if workspace is not None else None
    if watched is None or not watched.dynamic_registration:
        return
    options = lsp.DidChangeWatchedFilesRegistrationOptions(
        watchers=[lsp.FileSystemWatcher(glob_pattern=g) for g in WATCHED]
    )
    registration = lsp.Registration(str(uuid.uuid4()), lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES, options)
    try:
        await ls.client_register_capability_async(lsp.RegistrationParams([registration]))
    except Exception:
        log.exception("registering file watchers failed")


async def _after_initialized(ls: AblServer, found: int) -> None:
    await _read_configuration(ls)
    await _watch_files(ls)
    await _index_workspace(ls, found)


def _add_folders(ls: AblServer) -> int:
    folders = [f.uri for f in ls.workspace.folders.values()] or (
        [ls.workspace.root_uri] if ls.workspace.root_uri else []
    )
    paths = [p for p in (uri_to_path(u) for u in folders) if p is not None]
    return sum(len(ls.host.add_folder(path)) for path in paths)


async def _index_workspace(ls: AblServer, found: int) -> None:
    """Analyse every file read at start-up, with progress shown in the editor."""
    token = str(uuid.uuid4())
    window = ls.client_capabilities.window
    progress = bool(window is not None and window.work_done_progress) and found > 0
    if progress:
        try:
            await ls.work_done_progress.create_async(token)
        except Exception:
            log.exception("creating a progress token failed")
            progress = False
    if progress:
        ls.work_done_progress.begin(
            token, lsp.WorkDoneProgressBegin(title="ABL", message=f"checking {count(found, 'file')}", percentage=0)
        )
    ls.analyse_and_publish()
    ls.heap.settle()
    if progress:
        ls.work_done_progress.end(token, lsp.WorkDoneProgressEnd(message=f"{found} ABL files"))
