// A clock's time as text, for the game page's clocks and the lobby's "My games" list.

/** `seconds` as m:ss (h:mm:ss from an hour; tenths below ten seconds; from a day, as a
 *  correspondence clock has, days and hours: "2d 23h"). */
export function formatClock(seconds) {
  const s = Math.max(0, seconds);
  if (s >= 86400) return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
  const minutes = Math.floor(s / 60);
  const rest = Math.floor(s % 60);
  const hours = Math.floor(minutes / 60);
  const mm = hours ? String(minutes % 60).padStart(2, "0") : String(minutes);
  const tenths = s < 10 ? "." + Math.floor((s * 10) % 10) : "";
  return (hours ? hours + ":" : "") + mm + ":" + String(rest).padStart(2, "0") + tenths;
}
