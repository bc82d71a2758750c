// ragtest review: keyboard and saving for the review page. No library, no network beyond this page's own server.
"use strict";
(function () {
  const token = document.querySelector('meta[name="ragtest-token"]').content;
  const body = document.body;

  function showError(message) {
    const box = document.getElementById("error");
    box.textContent = message;
    box.hidden = false;
  }

  async function post(url, payload) {
    const reply = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-Ragtest-Token": token },
      body: JSON.stringify(payload),
    });
    const data = await reply.json().catch(() => ({ error: reply.statusText }));
    if (!reply.ok) throw new Error(data.error || reply.statusText);
    return data;
  }

  function typing(event) {
    const tag = event.target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA";
  }

  function go(url) {
    if (url !== "" && url !== undefined) window.location.assign(url);
  }

  // -- the test set: accept / edit / reject -------------------------------------------------------------------
  function testsetPage() {
    const index = body.dataset.index;
    const editForm = document.getElementById("edit-form");
    const rejectForm = document.getElementById("reject-form");
    let busy = false;

    async function decide(decision, extra) {
      if (busy) return;
      busy = true;
      try {
        const data = await post("/api/testset/" + index, Object.assign({ key: body.dataset.key, decision }, extra));
        go(data.next);
      } catch (error) {
        busy = false;
        showError(error.message);
      }
    }
    function openForm(form, field) {
      editForm.hidden = rejectForm.hidden = true;
      form.hidden = false;
      const input = document.getElementById(field);
      input.focus();
      input.select();
    }
    function closeForms() {
      editForm.hidden = rejectForm.hidden = true;
      document.activeElement.blur();
    }
    function saveEdit() {
      decide("edited", {
        question: document.getElementById("edit-question").value,
        ground_truth: document.getElementById("edit-reference").value,
      });
    }
    function reject() {
      const reason = document.getElementById("reject-reason").value.trim();
      if (!reason) return showError("say why the question is rejected");
      decide("rejected", { reason });
    }
    const actions = {
      accept: () => decide("accepted", {}),
      edit: () => openForm(editForm, "edit-question"),
      reject: () => openForm(rejectForm, "reject-reason"),
      previous: () => body.dataset.previous !== "" && go("/testset/" + body.dataset.previous),
      following: () => body.dataset.following !== "" && go("/testset/" + body.dataset.following),
    };
    document.querySelectorAll("[data-action]").forEach((button) =>
      button.addEventListener("click", () => actions[button.dataset.action]()));
    editForm.addEventListener("submit", (event) => { event.preventDefault(); saveEdit(); });
    rejectForm.addEventListener("submit", (event) => { event.preventDefault(); reject(); });
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape") return closeForms();
      if (typing(event)) {
        if (event.target.id === "reject-reason" && event.key === "Enter") { event.preventDefault(); reject(); }
        if (!editForm.hidden && event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
          event.preventDefault();
          saveEdit();
        }
        return;
      }
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const key = { a: "accept", e: "edit", r: "reject", k: "previous", ArrowLeft: "previous",
                    j: "following", ArrowRight: "following" }[event.key];
      if (key) { event.preventDefault(); actions[key](); }
    });
  }

  // -- labelling: faithfulness, correctness, relevant contexts ------------------------------------------------
  function labelPage() {
    const groups = Array.from(document.querySelectorAll("fieldset.group"));
    const contexts = Array.from(document.querySelectorAll("button.context"));
    let active = 0;
    let busy = false;

    function highlight() {
      groups.forEach((group, i) => group.classList.toggle("active", i === active));
      groups.forEach((group) => group.querySelectorAll("button[data-value]").forEach((button) =>
        button.setAttribute("aria-pressed", String(button.dataset.value === group.dataset.value))));
    }
    function choose(value) {
      const group = groups[active];
      if (group.dataset.group === "contexts") return;
      group.dataset.value = value;
      active = Math.min(active + 1, groups.length - 1);
      highlight();
    }
    function showMarked() {
      const marked = contexts.map((b, i) => (b.getAttribute("aria-pressed") === "true" ? i + 1 : 0)).filter(Boolean);
      const box = document.getElementById("marked");
      if (box) box.textContent = marked.length ? "marked: " + marked.join(", ") : "none marked";
    }
    function toggle(number) {
      const button = contexts[number];
      if (!button) return;
      button.setAttribute("aria-pressed", String(button.getAttribute("aria-pressed") !== "true"));
      showMarked();
    }
    function value(name) {
      const group = groups.find((g) => g.dataset.group === name);
      return group && group.dataset.value ? group.dataset.value : null;
    }
    async function send(payload) {
      if (busy) return;
      busy = true;
      try {
        const data = await post("/api/label/" + body.dataset.position,
          Object.assign({ key: body.dataset.key, labeller: body.dataset.labeller }, payload));
        go(data.next);
      } catch (error) {
        busy = false;
        showError(error.message);
      }
    }
    function save() {
      if (!value("faithfulness")) return showError("mark faithfulness first: y, p or n");
      if (body.dataset.hasReference === "yes" && !value("answer_correctness")) {
        return showError("mark correctness first: y, p or n");
      }
      send({
        faithfulness: value("faithfulness"),
        answer_correctness: value("answer_correctness"),
        relevant_contexts: contexts.map((button) => button.getAttribute("aria-pressed") === "true"),
      });
    }
    const actions = {
      save,
      skip: () => send({ skip: true }),
      previous: () => body.dataset.previous !== "" &&
        go("/label/" + encodeURIComponent(body.dataset.labeller) + "/" + body.dataset.previous),
    };
    groups.forEach((group, i) => group.querySelectorAll("button[data-value]").forEach((button) =>
      button.addEventListener("click", () => { active = i; choose(button.dataset.value); })));
    contexts.forEach((button, i) => button.addEventListener("click", () => toggle(i)));
    document.querySelectorAll("[data-action]").forEach((button) =>
      button.addEventListener("click", () => actions[button.dataset.action]()));
    document.addEventListener("keydown", (event) => {
      if (typing(event) || event.ctrlKey || event.metaKey || event.altKey) return;
      const choice = { y: "yes", p: "partly", n: "no" }[event.key];
      if (choice) { event.preventDefault(); return choose(choice); }
      if (/^[1-9]$/.test(event.key)) { event.preventDefault(); return toggle(Number(event.key) - 1); }
      if (event.key === "Enter") { event.preventDefault(); return save(); }
      if (event.key === "s") { event.preventDefault(); return actions.skip(); }
      if (event.key === "b") { event.preventDefault(); return actions.previous(); }
      if (event.key === "Backspace" || event.key === "Tab") {
        event.preventDefault();
        const step = event.key === "Tab" && !event.shiftKey ? 1 : -1;
        active = (active + step + groups.length) % groups.length;
        highlight();
      }
    });
    highlight();
    showMarked();
  }

  if (body.dataset.page === "testset") testsetPage();
  if (body.dataset.page === "label") labelPage();
})();
