import type { OutboxItem } from "../state/outbox";

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text as HTML text or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => entities[char] ?? char);
}

function linkCell(link: string | null): string {
  if (link === null) return "";
  // Only http(s) links become anchors; anything else is shown as text.
  if (!/^https?:\/\//i.test(link)) return escapeHtml(link);
  return `<a href="${escapeHtml(link)}">${escapeHtml(link)}</a>`;
}

/** The outbox for a person reading it in a browser: newest first, everything escaped. */
export function outboxPage(items: OutboxItem[], to: string | undefined): string {
  const rows = items
    .map(
      (item) => `<tr>
<td>${escapeHtml(item.sentAt)}</td>
<td>${item.kind === "sms" ? "SMS" : "メール"}</td>
<td>${escapeHtml(item.to)}</td>
<td><strong>${escapeHtml(item.subject)}</strong><pre>${escapeHtml(item.text)}</pre></td>
<td class="code">${escapeHtml(item.code ?? "")}</td>
<td>${linkCell(item.link)}</td>
</tr>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="ja">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>送信済みメール・SMS（エミュレータ）</title>
<link rel="stylesheet" href="/__emulator/outbox.css">
</head>
<body>
<h1>送信済みメール・SMS</h1>
<form method="get"><label>宛先で絞り込み <input name="to" value="${escapeHtml(to ?? "")}"></label> <button>表示</button></form>
<p>${items.length} 件（新しい順）。JSON は <code>Accept: application/json</code> で取得できます。</p>
<table>
<thead><tr><th>送信日時</th><th>種別</th><th>宛先</th><th>件名・本文</th><th>コード</th><th>リンク</th></tr></thead>
<tbody>
${rows || '<tr><td colspan="6">まだ何も送信されていません。</td></tr>'}
</tbody>
</table>
</body>
</html>`;
}

/** Served as a file, not inline: behind the site the page gets the site's CSP, which allows 'self' styles only. */
export const outboxStyles = `body { font-family: system-ui, "Hiragino Sans", "Noto Sans JP", sans-serif; margin: 1.5rem; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #ccc; padding: .4rem .6rem; vertical-align: top; text-align: left; }
pre { white-space: pre-wrap; margin: .3rem 0 0; font-family: inherit; }
.code { font-family: ui-monospace, monospace; font-size: 1.2rem; }
`;
