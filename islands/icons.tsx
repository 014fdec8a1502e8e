// Decorative input icons (product §2 "e-mail and key input icons", "password show/hide icon"): hidden from assistive
// tech. Islands draw them from the page's sprite (pages/layout/IconSprite.tsx), so their paths travel once in the
// HTML rather than in island code (island bytes are budgeted).
export type IconName = "email" | "key" | "eye" | "eyeOff";

export function Icon({ name }: { name: IconName }) {
  return (
    <svg className="icon" width={20} height={20} aria-hidden="true" focusable="false">
      <use href={`#icon-${name}`} />
    </svg>
  );
}
