import type { Brand } from "../../themes/schema";

/** The Key URI authenticator apps read: otpauth://totp/{brand}:{email}?secret&issuer (brand = display name). */
export function otpauthUri(brand: Pick<Brand, "displayName">, account: string | undefined, secret: string): string {
  const issuer = encodeURIComponent(brand.displayName);
  const label = account ? `${issuer}:${encodeURIComponent(account)}` : issuer;
  return `otpauth://totp/${label}?secret=${secret}&issuer=${issuer}`;
}
