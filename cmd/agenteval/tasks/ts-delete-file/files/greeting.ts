export function greeting(): string {
  return "hello";
}
