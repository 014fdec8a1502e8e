import { expect } from "vitest";
import type { OutboxItem } from "../../emulator/state/outbox";
import { rawBrands } from "../../themes/data/brands";

// docs/devices.md, "Notices": what every notice must hold, for the emulator's notice tests.

/** A link, a scheme, or text a mail reader would make one of (`evil.example`). */
export const linkLike = /https?:|\/\/|www\.|[a-z0-9-]+\.[a-z]{2,}/i;

export function brandOf(serviceId: string) {
  const brand = rawBrands.find((candidate) => candidate.id === serviceId);
  if (brand === undefined) throw new Error(`no brand ${serviceId}`);
  return brand;
}

/** `2026年11月26日 17:33（日本時間）` for the time the outbox says the mail went out. */
function japanTime(sentAt: string): string {
  const local = new Date(Date.parse(sentAt) + 9 * 60 * 60 * 1000);
  const two = (value: number) => String(value).padStart(2, "0");
  return `${local.getUTCFullYear()}年${local.getUTCMonth() + 1}月${local.getUTCDate()}日 ${two(local.getUTCHours())}:${two(local.getUTCMinutes())}（日本時間）`;
}

export interface ExpectedNotice {
  title: string;
  /** The brand whose name the subject carries and whose support line the text gives; the default client's unless given. */
  serviceId?: string;
  method: string;
  device: string;
  place: string;
}

/** A notice with its facts, what to do in words, and nothing a reader could follow (no link, no bidi override). */
export function expectNotice(mail: OutboxItem | undefined, expected: ExpectedNotice): OutboxItem {
  if (mail === undefined) throw new Error(`no notice ${expected.title}`);
  const brand = brandOf(expected.serviceId ?? "client");
  expect(mail.subject).toBe(`【${brand.displayName}】${expected.title}`);
  expect(mail.text).toContain(`日時: ${japanTime(mail.sentAt)}`);
  expect(mail.text).toContain(`方法: ${expected.method}`);
  expect(mail.text).toContain(`端末: ${expected.device}`);
  expect(mail.text).toContain(`場所: ${expected.place}`);
  expect(mail.text).toContain("お心当たりのない場合");
  expect(mail.text).toContain("パスワードを変更");
  const { support } = brand;
  expect(mail.text).toContain(
    support.advisorManaged
      ? "ご担当のアドバイザーまでご連絡ください"
      : support.tel === undefined
        ? `${support.callCenterName}までご連絡ください`
        : `${support.callCenterName}（電話 ${support.tel}、受付時間 ${support.businessHour}）までお電話ください`,
  );
  expect(`${mail.subject}\n${mail.text}`).not.toMatch(linkLike);
  expect(mail.text).not.toContain("\u202E");
  expect(mail.link).toBeNull();
  return mail;
}
