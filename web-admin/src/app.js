// Shows the server's health, read from the public API like any client would.
const show = (id, text, cls) => {
  const el = document.getElementById(id);
  el.textContent = text;
  if (cls) el.className = cls;
};

async function refresh() {
  try {
    const res = await fetch("/api/health", { headers: { Accept: "application/json" } });
    const body = await res.json();
    show("database", body.database, body.database === "ok" ? "ok" : "bad");
    show("version", body.version);
    show("commit", body.commit);
  } catch (err) {
    show("database", `unreachable (${err.message})`, "bad");
  }
}

refresh();
setInterval(refresh, 5000);
