// The app's only script, a progressive touch: "Copy" buttons next to a shown value (client id,
// secret). Without it the buttons stay hidden and the value is still selectable text.
export const COPY_JS = `(function(){
var live=document.getElementById('copy-status');
document.querySelectorAll('button[data-copy]').forEach(function(b){
if(!navigator.clipboard)return;b.hidden=false;
b.addEventListener('click',function(){var el=document.getElementById(b.getAttribute('data-copy'));if(!el)return;
navigator.clipboard.writeText(el.textContent.trim()).then(function(){
if(live)live.textContent=b.getAttribute('data-done')||'Copied';
b.textContent='Copied';setTimeout(function(){b.textContent=b.getAttribute('data-label')||'Copy';},2000);
},function(){if(live)live.textContent='Copying failed: select the text and copy it.';});});});
})();
`;
