export function oldGreeting(): string {
  return "howdy";
}
