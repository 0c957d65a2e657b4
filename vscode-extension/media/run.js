// The Run Agent panel's page: the chat, the trace timeline, the variables and the thread stack.
// Everything it shows comes from the extension (formatted there), which holds the conversation:
// a page that loads again is sent all of it (`snapshot`); trace events then arrive as they happen
// (`events`). The page remembers only the level its timeline is filtered at.
(function () {
  "use strict";
  const vscode = acquireVsCodeApi();
  const app = document.getElementById("app");
  const LEVELS = ["minimal", "standard", "verbose", "debug"];
  const saved = vscode.getState();
  const state = { runId: null, chat: [], events: [], level: (saved && saved.level) || app.dataset.level || "standard", run: null, model: "embedded" };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children) node.append(child);
    return node;
  }

  const toolbar = el("div", { class: "toolbar", role: "toolbar", "aria-label": "Run" });
  const buttons = [
    ["restart", "Restart", "reset"],
    ["save", "Save session", "save"],
    ["load", "Load session", "load"],
    ["save-test", "Save as test", "saveTest"],
    ["model", "Model", "chooseModel"],
  ];
  for (const [id, label, type] of buttons) {
    toolbar.append(el("button", { id: "btn-" + id, type: "button", onclick: () => vscode.postMessage({ type }) }, label));
  }
  const modelName = el("span", { class: "model", id: "model-name" });
  toolbar.append(modelName);

  const chat = el("ol", { class: "chat", id: "chat", "aria-live": "polite", "aria-label": "Conversation" });
  const input = el("textarea", { id: "message", rows: "2", placeholder: "Message (Enter sends, Shift+Enter for a new line)", "aria-label": "Message" });
  const sendButton = el("button", { type: "submit", id: "send" }, "Send");
  const form = el("form", { class: "composer" }, input, sendButton);
  const errorBox = el("div", { class: "error", role: "alert", id: "error", hidden: "" });
  // What the run's agents declare that the local runtime does not enforce, for the whole run.
  const notice = el("div", { class: "notice", role: "note", id: "not-enforced", hidden: "" });

  const levelSelect = el("select", { id: "level", "aria-label": "Trace level" });
  for (const level of LEVELS) levelSelect.append(el("option", { value: level }, level));
  const timeline = el("ol", { class: "timeline", id: "timeline", "aria-label": "Trace" });
  const variables = el("dl", { class: "variables", id: "variables" });
  const stack = el("ol", { class: "stack", id: "stack" });

  app.append(
    toolbar,
    notice,
    el("div", { class: "columns" },
      el("section", { class: "chat-column", "aria-label": "Chat" }, chat, errorBox, form),
      el("section", { class: "trace-column", "aria-label": "Trace" },
        el("div", { class: "trace-head" }, el("h2", {}, "Trace"), el("label", { for: "level" }, "Level "), levelSelect),
        timeline,
        el("h2", {}, "Variables"), variables,
        el("h2", {}, "Thread stack"), stack)));

  function remember() { vscode.setState({ level: state.level }); }

  function renderChat() {
    chat.replaceChildren();
    for (const message of state.chat) {
      const who = message.role === "user" ? "you" : message.agent || "agent";
      chat.append(el("li", { class: "message " + (message.role === "user" ? "user" : "agent") },
        el("span", { class: "who" }, who), el("span", { class: "text" }, message.text)));
    }
    chat.lastElementChild?.scrollIntoView({ block: "end" });
  }

  function visible(entries) {
    const limit = LEVELS.indexOf(state.level);
    return entries.filter((entry) => LEVELS.indexOf(entry.level) <= limit);
  }

  function timelineItem(entry) {
    const item = el("li", { class: "event" + (entry.problem ? " problem" : ""), "data-type": entry.type, "data-seq": String(entry.seq) });
    const body = [el("span", { class: "type" }, entry.type), el("span", { class: "agent" }, entry.agent), el("span", { class: "summary" }, entry.summary)];
    if (entry.location) {
      // A button, so the keyboard reaches it: it shows the source that caused the event.
      const button = el("button", { type: "button", class: "reveal", title: "Show in the editor", onclick: () => select(item, entry) }, ...body);
      item.append(button);
    } else {
      item.append(...body);
    }
    return item;
  }

  function renderTimeline() {
    levelSelect.value = state.level;
    timeline.replaceChildren(...visible(state.events).map(timelineItem));
    timeline.lastElementChild?.scrollIntoView({ block: "end" });
  }

  /** Events as they happen: appended, without drawing the rest again. */
  function appendEvents(entries) {
    state.events = state.events.concat(entries);
    const shown = visible(entries).map(timelineItem);
    timeline.append(...shown);
    if (shown.length) shown[shown.length - 1].scrollIntoView({ block: "end" });
  }

  function select(item, entry) {
    for (const other of timeline.querySelectorAll(".selected")) other.classList.remove("selected");
    item.classList.add("selected");
    vscode.postMessage({ type: "reveal", location: entry.location });
  }

  function renderState() {
    const run = state.run || {};
    modelName.textContent = "model: " + state.model + (run.activeAgent ? " · active: " + run.activeAgent : "") + (run.ended ? " · ended" : "");
    variables.replaceChildren();
    const values = run.values || {};
    const names = Object.keys(values);
    if (!names.length) variables.append(el("dd", { class: "none" }, "none set"));
    for (const name of names) variables.append(el("dt", {}, name), el("dd", {}, JSON.stringify(values[name])));
    stack.replaceChildren();
    for (const thread of run.threads || []) {
      stack.append(el("li", { class: "thread " + thread.status }, thread.agent + " · " + thread.status + " · " + thread.historyLength + (thread.historyLength === 1 ? " message" : " messages")));
    }
  }

  function renderNotice(shown) {
    notice.replaceChildren();
    if (!shown) { notice.setAttribute("hidden", ""); return; }
    const list = el("ul", {});
    for (const line of shown.lines) {
      list.append(el("li", {}, el("button", { type: "button", class: "reveal", title: "Show in the editor",
        onclick: () => vscode.postMessage({ type: "reveal", location: line.location }) }, line.text)));
    }
    notice.append(el("p", {}, shown.heading), list);
    notice.removeAttribute("hidden");
  }

  function renderAll() { renderChat(); renderTimeline(); renderState(); }

  /** The error's text, then a link to each place it names (the errors of a refused run). */
  function showError(message, links) {
    errorBox.replaceChildren(message);
    for (const link of links || []) {
      const open = el("button", { type: "button", class: "error-link", title: "Show in the editor", onclick: () => vscode.postMessage({ type: "reveal", location: link.location }) }, link.label);
      errorBox.append(el("div", {}, open));
    }
    if (message) errorBox.removeAttribute("hidden"); else errorBox.setAttribute("hidden", "");
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    state.chat.push({ role: "user", text });
    input.value = "";
    showError("");
    renderChat();
    vscode.postMessage({ type: "send", text });
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); form.requestSubmit(); }
  });
  levelSelect.addEventListener("change", () => { state.level = levelSelect.value; renderTimeline(); remember(); });

  window.addEventListener("message", (event) => {
    const message = event.data;
    switch (message.type) {
      case "snapshot":
        state.runId = message.runId;
        state.model = message.model;
        state.chat = message.chat.slice();
        state.events = message.events.slice();
        state.run = message.state;
        showError("");
        renderNotice(message.notice);
        renderAll();
        // Only a new conversation takes the focus: a page that loads again (the panel came back
        // into view) must not pull it away from where the user is typing.
        if (message.fresh) input.focus();
        return;
      case "events":
        appendEvents(message.events);
        return;
      case "replies":
        for (const reply of message.replies) state.chat.push(reply);
        renderChat();
        return;
      case "state":
        state.run = message.state;
        renderState();
        return;
      case "error":
        showError(message.message, message.links);
        return;
      default:
        return;
    }
  });

  renderAll();
  vscode.postMessage({ type: "ready" });
})();
