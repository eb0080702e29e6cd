import { Person } from "./types";

export function describe(p: Person): string {
  return `${p.name} (${p.age})`;
}
