import { describe, expect, it } from "vitest";
import { isValidTimeZone, nextSendTime } from "../../../../src/apps/dashboard/core/content/report-schedule.ts";
import type { ScheduleInput } from "../../../../src/apps/dashboard/core/content/report-schedule.ts";

/** next send as an ISO string (UTC), so expectations read as instants */
function next(schedule: ScheduleInput, after: string): string | null {
  const t = nextSendTime(schedule, Date.parse(after));
  return t === null ? null : new Date(t).toISOString();
}

/** the next `count` sends after `after`, each found from the previous one as a scheduler would */
function sends(schedule: ScheduleInput, after: string, count: number): (string | null)[] {
  const out: (string | null)[] = [];
  let t: number | null = Date.parse(after);
  for (let i = 0; i < count && t !== null; i++) {
    t = nextSendTime(schedule, t);
    out.push(t === null ? null : new Date(t).toISOString());
  }
  return out;
}

describe("report schedule: once", () => {
  const once: ScheduleInput = { frequency: "once", startDate: "2026-03-10T09:00:00Z" };

  it("is startDate while it is still ahead", () => {
    expect(next(once, "2026-03-01T00:00:00Z")).toBe("2026-03-10T09:00:00.000Z");
  });

  it("is nothing once startDate has passed (strictly after)", () => {
    expect(next(once, "2026-03-10T09:00:00Z")).toBeNull();
    expect(next(once, "2026-04-01T00:00:00Z")).toBeNull();
  });

  it("is nothing when startDate is past endDate", () => {
    expect(next({ ...once, endDate: "2026-03-05T00:00:00Z" }, "2026-03-01T00:00:00Z")).toBeNull();
  });
});

describe("report schedule: repeating frequencies (UTC)", () => {
  it("hourly: every hour at startDate's minute; startDate itself first", () => {
    const hourly: ScheduleInput = { frequency: "hourly", startDate: "2026-03-10T09:15:00Z" };
    expect(next(hourly, "2026-03-01T00:00:00Z")).toBe("2026-03-10T09:15:00.000Z");
    expect(next(hourly, "2026-03-10T11:20:00Z")).toBe("2026-03-10T12:15:00.000Z");
    expect(next(hourly, "2026-03-10T12:15:00Z")).toBe("2026-03-10T13:15:00.000Z");
  });

  it("daily: every day at startDate's time", () => {
    const daily: ScheduleInput = { frequency: "daily", startDate: "2026-03-10T09:00:00Z", timeZone: "UTC" };
    expect(next(daily, "2026-03-12T09:00:00Z")).toBe("2026-03-13T09:00:00.000Z");
    expect(next(daily, "2026-03-12T08:59:59Z")).toBe("2026-03-12T09:00:00.000Z");
  });

  it("weekly: every 7 days on startDate's weekday", () => {
    const weekly: ScheduleInput = { frequency: "weekly", startDate: "2026-03-10T09:00:00Z" }; // a Tuesday
    expect(next(weekly, "2026-03-18T00:00:00Z")).toBe("2026-03-24T09:00:00.000Z");
  });

  it("monthly: startDate's day, the month's last day where it is missing, without drifting", () => {
    const monthly: ScheduleInput = { frequency: "monthly", startDate: "2026-01-31T08:00:00Z" };
    expect(sends(monthly, "2026-01-31T08:00:00Z", 4)).toEqual([
      "2026-02-28T08:00:00.000Z",
      "2026-03-31T08:00:00.000Z",
      "2026-04-30T08:00:00.000Z",
      "2026-05-31T08:00:00.000Z",
    ]);
  });

  it("monthly: dayOfMonth wins when it parses as 1-31, first send at or after startDate", () => {
    const start = "2026-01-20T08:00:00Z";
    expect(next({ frequency: "monthly", startDate: start, dayOfMonth: "15" }, "2026-01-01T00:00:00Z")).toBe("2026-02-15T08:00:00.000Z");
    expect(next({ frequency: "monthly", startDate: start, dayOfMonth: "25" }, "2026-01-01T00:00:00Z")).toBe("2026-01-25T08:00:00.000Z");
    for (const ignored of ["", "0", "32", "abc"]) {
      expect(next({ frequency: "monthly", startDate: start, dayOfMonth: ignored }, "2026-01-01T00:00:00Z")).toBe("2026-01-20T08:00:00.000Z");
    }
  });

  it("last: the last day of each month, February 29th in a leap year", () => {
    const last = (startDate: string): ScheduleInput => ({ frequency: "last", startDate });
    expect(next(last("2028-01-10T06:00:00Z"), "2028-01-01T00:00:00Z")).toBe("2028-01-31T06:00:00.000Z");
    expect(next(last("2028-01-10T06:00:00Z"), "2028-02-01T00:00:00Z")).toBe("2028-02-29T06:00:00.000Z");
    expect(next(last("2027-01-10T06:00:00Z"), "2027-02-01T00:00:00Z")).toBe("2027-02-28T06:00:00.000Z");
    expect(next(last("2027-01-10T06:00:00Z"), "2027-02-28T06:00:00Z")).toBe("2027-03-31T06:00:00.000Z");
  });

  it("last: a startDate on the last day but after its time starts next month", () => {
    expect(next({ frequency: "last", startDate: "2026-04-30T06:00:00Z" }, "2026-01-01T00:00:00Z")).toBe("2026-04-30T06:00:00.000Z");
    // 06:00 on April 30th is the wall time; the first month-end at or after it is April's
    expect(next({ frequency: "last", startDate: "2026-04-29T06:00:00Z" }, "2026-04-30T06:00:00Z")).toBe("2026-05-31T06:00:00.000Z");
  });
});

describe("report schedule: custom intervals", () => {
  it("every 2 weeks", () => {
    const s: ScheduleInput = { frequency: "custom", intervalFrequency: "weeks", intervalAmount: 2, startDate: "2026-01-05T10:00:00Z" };
    expect(next(s, "2026-01-20T00:00:00Z")).toBe("2026-02-02T10:00:00.000Z");
  });

  it("every 3 months, clamped to month end from startDate's 31st", () => {
    const s: ScheduleInput = { frequency: "custom", intervalFrequency: "months", intervalAmount: 3, startDate: "2026-01-31T10:00:00Z" };
    expect(sends(s, "2026-01-31T10:00:00Z", 3)).toEqual([
      "2026-04-30T10:00:00.000Z",
      "2026-07-31T10:00:00.000Z",
      "2026-10-31T10:00:00.000Z",
    ]);
  });

  it("every 6 hours", () => {
    const s: ScheduleInput = { frequency: "custom", intervalFrequency: "hours", intervalAmount: 6, startDate: "2026-01-01T01:00:00Z" };
    expect(next(s, "2026-01-03T02:00:00Z")).toBe("2026-01-03T07:00:00.000Z");
  });

  it("every 10 days", () => {
    const s: ScheduleInput = { frequency: "custom", intervalFrequency: "days", intervalAmount: 10, startDate: "2026-01-01T12:00:00Z" };
    expect(next(s, "2026-01-11T12:00:00Z")).toBe("2026-01-21T12:00:00.000Z");
  });
});

describe("report schedule: workdaysOnly", () => {
  it("daily: Friday's send is followed by Monday's (Europe/Paris)", () => {
    // Thursday 2026-01-01 09:00 in Paris (UTC+1)
    const s: ScheduleInput = { frequency: "daily", startDate: "2026-01-01T09:00:00+01:00", timeZone: "Europe/Paris", workdaysOnly: true };
    expect(next(s, "2026-01-01T12:00:00Z")).toBe("2026-01-02T08:00:00.000Z");
    expect(next(s, "2026-01-02T08:00:00Z")).toBe("2026-01-05T08:00:00.000Z");
  });

  it("daily: a startDate on a Saturday first sends on Monday", () => {
    const s: ScheduleInput = { frequency: "daily", startDate: "2026-01-03T09:00:00Z", workdaysOnly: true };
    expect(next(s, "2026-01-01T00:00:00Z")).toBe("2026-01-05T09:00:00.000Z");
  });

  it("hourly: nothing on the local weekend, then Monday 00:30 local", () => {
    // Friday 2026-01-02 10:30 Paris = 09:30Z; local weekdays decide, not UTC ones
    const s: ScheduleInput = { frequency: "hourly", startDate: "2026-01-02T10:30:00+01:00", timeZone: "Europe/Paris", workdaysOnly: true };
    expect(next(s, "2026-01-02T22:00:00Z")).toBe("2026-01-02T22:30:00.000Z"); // Friday 23:30 local
    expect(next(s, "2026-01-02T22:30:00Z")).toBe("2026-01-04T23:30:00.000Z"); // Monday 00:30 local
    expect(next(s, "2026-01-03T12:00:00Z")).toBe("2026-01-04T23:30:00.000Z");
  });

  it("is ignored by weekly and custom frequencies", () => {
    const weekly: ScheduleInput = { frequency: "weekly", startDate: "2026-01-03T09:00:00Z", workdaysOnly: true }; // a Saturday
    expect(next(weekly, "2026-01-03T09:00:00Z")).toBe("2026-01-10T09:00:00.000Z");
    const custom: ScheduleInput = { frequency: "custom", intervalFrequency: "days", intervalAmount: 1, startDate: "2026-01-03T09:00:00Z", workdaysOnly: true };
    expect(next(custom, "2026-01-03T09:00:00Z")).toBe("2026-01-04T09:00:00.000Z");
  });
});

describe("report schedule: endDate", () => {
  const daily: ScheduleInput = { frequency: "daily", startDate: "2026-03-01T09:00:00Z", endDate: "2026-03-05T09:00:00Z" };

  it("includes an occurrence at endDate itself", () => {
    expect(next(daily, "2026-03-04T10:00:00Z")).toBe("2026-03-05T09:00:00.000Z");
  });

  it("returns nothing after it", () => {
    expect(next(daily, "2026-03-05T09:00:00Z")).toBeNull();
    expect(next({ ...daily, endDate: "2026-03-05T08:00:00Z" }, "2026-03-04T10:00:00Z")).toBeNull();
  });

  it("treats null or empty as no end", () => {
    expect(next({ ...daily, endDate: null }, "2030-01-01T10:00:00Z")).toBe("2030-01-02T09:00:00.000Z");
    expect(next({ ...daily, endDate: "" }, "2030-01-01T10:00:00Z")).toBe("2030-01-02T09:00:00.000Z");
  });
});

describe("report schedule: daylight saving time", () => {
  it("daily 09:00 Europe/Paris stays 09:00 local across the March change (08:00Z -> 07:00Z)", () => {
    const s: ScheduleInput = { frequency: "daily", startDate: "2026-03-20T09:00:00+01:00", timeZone: "Europe/Paris" };
    expect(sends(s, "2026-03-27T12:00:00Z", 3)).toEqual([
      "2026-03-28T08:00:00.000Z", // Saturday, CET
      "2026-03-29T07:00:00.000Z", // Sunday, CEST from 02:00
      "2026-03-30T07:00:00.000Z",
    ]);
  });

  it("daily 09:00 Europe/Paris stays 09:00 local across the October change (07:00Z -> 08:00Z)", () => {
    const s: ScheduleInput = { frequency: "daily", startDate: "2026-03-20T09:00:00+01:00", timeZone: "Europe/Paris" };
    expect(sends(s, "2026-10-23T12:00:00Z", 3)).toEqual([
      "2026-10-24T07:00:00.000Z",
      "2026-10-25T08:00:00.000Z",
      "2026-10-26T08:00:00.000Z",
    ]);
  });

  it("America/New_York daily 02:30 moves to 03:30 EDT on the spring-forward day, then back to 02:30", () => {
    const s: ScheduleInput = { frequency: "daily", startDate: "2026-03-01T02:30:00-05:00", timeZone: "America/New_York" };
    expect(sends(s, "2026-03-07T00:00:00Z", 3)).toEqual([
      "2026-03-07T07:30:00.000Z", // 02:30 EST
      "2026-03-08T07:30:00.000Z", // 02:30 does not exist: 03:30 EDT
      "2026-03-09T06:30:00.000Z", // 02:30 EDT
    ]);
  });

  it("an ambiguous fall-back wall time is sent once, at its first instant", () => {
    const s: ScheduleInput = { frequency: "daily", startDate: "2026-10-20T02:30:00+02:00", timeZone: "Europe/Paris" };
    expect(sends(s, "2026-10-24T01:00:00Z", 2)).toEqual([
      "2026-10-25T00:30:00.000Z", // 02:30 CEST, the first of the two 02:30s
      "2026-10-26T01:30:00.000Z", // 02:30 CET, the day after
    ]);
    // the same with a weekly schedule whose start falls in winter time
    const weekly: ScheduleInput = { frequency: "weekly", startDate: "2026-11-01T02:30:00+01:00", timeZone: "Europe/Paris" };
    expect(next(weekly, "2027-10-30T00:00:00Z")).toBe("2027-10-31T00:30:00.000Z");
  });

  it("a startDate at the second of two ambiguous instants is itself the first send", () => {
    const s: ScheduleInput = { frequency: "daily", startDate: "2026-10-25T02:30:00+01:00", timeZone: "Europe/Paris" };
    expect(next(s, "2026-10-25T00:00:00Z")).toBe("2026-10-25T01:30:00.000Z");
    expect(next(s, "2026-10-25T01:30:00Z")).toBe("2026-10-26T01:30:00.000Z");
  });

  it("hourly counts elapsed hours: both 02:30s of the fall-back night are sent, an hour apart", () => {
    const s: ScheduleInput = { frequency: "hourly", startDate: "2026-10-24T23:30:00+02:00", timeZone: "Europe/Paris" };
    expect(sends(s, "2026-10-24T23:45:00Z", 3)).toEqual([
      "2026-10-25T00:30:00.000Z", // 02:30 CEST
      "2026-10-25T01:30:00.000Z", // 02:30 CET
      "2026-10-25T02:30:00.000Z", // 03:30 CET
    ]);
  });

  it("monthly on the 29th across the March change keeps 09:00 local", () => {
    const s: ScheduleInput = { frequency: "monthly", startDate: "2026-01-29T09:00:00+01:00", timeZone: "Europe/Paris" };
    expect(sends(s, "2026-02-01T00:00:00Z", 3)).toEqual([
      "2026-02-28T08:00:00.000Z", // clamped, CET
      "2026-03-29T07:00:00.000Z", // the change day itself, CEST
      "2026-04-29T07:00:00.000Z",
    ]);
  });
});

describe("report schedule: start dates far in the past", () => {
  it("hourly from ten years ago", () => {
    const s: ScheduleInput = { frequency: "hourly", startDate: "2016-01-01T00:05:00Z", timeZone: "Europe/Paris" };
    expect(next(s, "2026-06-15T12:34:56.789Z")).toBe("2026-06-15T13:05:00.000Z");
  });

  it("hourly workdaysOnly from ten years ago lands on Monday", () => {
    const s: ScheduleInput = { frequency: "hourly", startDate: "2016-01-01T00:05:00Z", workdaysOnly: true };
    expect(next(s, "2026-06-13T12:00:00Z")).toBe("2026-06-15T00:05:00.000Z"); // from a Saturday
  });

  it("daily and monthly from ten years ago keep their local time", () => {
    const daily: ScheduleInput = { frequency: "daily", startDate: "2016-01-01T09:00:00+01:00", timeZone: "Europe/Paris" };
    expect(next(daily, "2026-06-15T12:00:00Z")).toBe("2026-06-16T07:00:00.000Z");
    const monthly: ScheduleInput = { frequency: "monthly", startDate: "2016-01-31T09:00:00+01:00", timeZone: "Europe/Paris" };
    expect(next(monthly, "2026-06-01T00:00:00Z")).toBe("2026-06-30T07:00:00.000Z");
  });

  it("answers many queries quickly (figures are for benchmarks; this only guards against a per-period loop)", () => {
    const s: ScheduleInput = { frequency: "hourly", startDate: "1990-01-01T00:05:00Z" };
    // a one-by-one walk would need ~320,000 steps per call here; the guard inside throws after 64
    for (let i = 0; i < 1000; i++) expect(nextSendTime(s, Date.parse("2026-06-15T12:00:00Z") + i * 60_000)).toBeGreaterThan(0);
  });
});

describe("report schedule: defaults", () => {
  it("an empty or absent timeZone means UTC", () => {
    const s: ScheduleInput = { frequency: "daily", startDate: "2026-03-10T09:00:00Z", timeZone: "" };
    expect(next(s, "2026-07-01T10:00:00Z")).toBe("2026-07-02T09:00:00.000Z");
  });

  it("an absent startDate anchors the schedule at `after`", () => {
    expect(next({ frequency: "daily" }, "2026-03-10T09:00:00Z")).toBe("2026-03-11T09:00:00.000Z");
    expect(next({ frequency: "once" }, "2026-03-10T09:00:00Z")).toBeNull();
  });

  it("a startDate without an offset is wall time in the schedule's zone", () => {
    const s: ScheduleInput = { frequency: "once", startDate: "2026-07-01T09:00:00", timeZone: "Europe/Paris" };
    expect(next(s, "2026-01-01T00:00:00Z")).toBe("2026-07-01T07:00:00.000Z");
  });
});

describe("report schedule: invalid input", () => {
  it("rejects an unknown time zone", () => {
    expect(() => nextSendTime({ frequency: "daily", timeZone: "Not/AZone" }, 0)).toThrow(/time zone "Not\/AZone"/);
  });

  it("rejects an unknown frequency", () => {
    const s = { frequency: "sometimes" } as unknown as ScheduleInput;
    expect(() => nextSendTime(s, 0)).toThrow(/unknown report frequency "sometimes"/);
  });

  it("rejects custom without a valid interval", () => {
    const custom: ScheduleInput = { frequency: "custom", startDate: "2026-01-01T00:00:00Z" };
    expect(() => nextSendTime({ ...custom, intervalFrequency: "days" }, 0)).toThrow(/intervalAmount/);
    expect(() => nextSendTime({ ...custom, intervalFrequency: "days", intervalAmount: 0 }, 0)).toThrow(/intervalAmount/);
    expect(() => nextSendTime({ ...custom, intervalFrequency: "days", intervalAmount: 1.5 }, 0)).toThrow(/intervalAmount/);
    expect(() => nextSendTime({ ...custom, intervalFrequency: "", intervalAmount: 2 }, 0)).toThrow(/intervalFrequency/);
  });

  it("rejects unparseable dates", () => {
    expect(() => nextSendTime({ frequency: "daily", startDate: "yesterday" }, 0)).toThrow(/startDate "yesterday"/);
    expect(() => nextSendTime({ frequency: "daily", startDate: "2026-01-01T00:00:00Z", endDate: "never" }, 0)).toThrow(/endDate "never"/);
  });
});

describe("isValidTimeZone", () => {
  it("accepts IANA zones and UTC", () => {
    for (const zone of ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Etc/UTC"]) expect(isValidTimeZone(zone)).toBe(true);
  });

  it("rejects unknown names, empty strings and luxon's non-IANA keywords", () => {
    for (const zone of ["Not/AZone", "", "local", "system", "browser", "+01:00", "-0500"]) expect(isValidTimeZone(zone)).toBe(false);
  });
});
