/** ali-ons ships no type declarations; tests use it only as a reference peer. */
declare module "ali-ons";
declare module "ali-ons/*";
