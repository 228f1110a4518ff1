// Bun's bundler turns a stylesheet import into its own output file.
declare module "*.css";
