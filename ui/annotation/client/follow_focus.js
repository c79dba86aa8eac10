// The ordinary Annotate page: keeps the highlighted question in sight. After a key moves
// the focus to a question below the fold, scroll just enough to show it.
setTimeout(() => {
  const marks = [...document.querySelectorAll('[data-testid="stMain"] strong')]
    .filter((el) => el.textContent.trim().startsWith("\u25b8"));
  if (marks.length) marks[0].scrollIntoView({ block: "nearest", behavior: "auto" });
}, 60);
