// A Service gone between the layout's check and the page's (the layout's notFound() lands in ../not-found.tsx).
export { default } from '../not-found';
