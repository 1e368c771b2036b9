/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  transpilePackages: ['@plotkeeper/shared'],
  output: 'standalone',
};

export default nextConfig;
