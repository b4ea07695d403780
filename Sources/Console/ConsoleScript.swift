/// The pages' script, served as `/console/console.js` (the Content-Security-Policy runs no inline script). It adds
/// the browser's own zone to the time zone picker and draws the map: the region outlines as the base layer (or the
/// deployment's tiles), markers coloured by accuracy flag with their accuracy circles, clusters where markers crowd,
/// and lines from terminals and visits to the merchant's address position. Every text it shows goes into the page
/// as text (`textContent`), never as markup.
enum ConsoleScript {
    static let text = #"""
(function () {
  'use strict';

  var flagColours = { precise: '#1a9850', approximate: '#e08214', unusable: '#d73027' };
  var noFlagColour = '#6a51a3';
  var regionFills = { mainland: '#f4f1ea', hong_kong: '#efe4f4', macau: '#efe4f4', taiwan: '#e6eff4', outside: '#e2e2e2' };
  // Past this many markers, those that fall in one cell of the grid are drawn as one cluster.
  var clusterAbove = 40;
  var cellPixels = 44;

  function setUpTimeZonePicker() {
    var select = document.getElementById('time-zone');
    if (!select) { return; }
    var zone = null;
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (ignored) { zone = null; }
    if (zone) {
      var existing = null;
      for (var i = 0; i < select.options.length; i++) {
        if (select.options[i].value === zone) { existing = select.options[i]; }
      }
      if (!existing) {
        existing = document.createElement('option');
        existing.value = zone;
        existing.textContent = zone;
        select.appendChild(existing);
      }
      existing.textContent = zone + ' (this browser)';
    }
    select.addEventListener('change', function () { select.form.submit(); });
  }

  function colourOf(point) {
    return flagColours[point.flag] || noFlagColour;
  }

  // A popup's content, as elements holding text.
  function popupOf(point) {
    var box = document.createElement('div');
    box.className = 'popup';
    var title;
    if (point.link && point.link.charAt(0) === '/' && point.link.charAt(1) !== '/') {
      title = document.createElement('a');
      title.href = point.link;
    } else {
      title = document.createElement('strong');
    }
    title.textContent = point.label;
    box.appendChild(title);
    (point.details || []).forEach(function (line) {
      var row = document.createElement('div');
      row.textContent = line;
      box.appendChild(row);
    });
    return box;
  }

  function textElement(text, className) {
    var element = document.createElement('span');
    element.className = className;
    element.textContent = text;
    return element;
  }

  function drawMap() {
    var element = document.getElementById('map');
    var source = document.getElementById('map-data');
    if (!element || !source || typeof L === 'undefined') { return; }
    var data = JSON.parse(source.textContent);
    var map = L.map(element, { attributionControl: false, zoomSnap: 0.5, worldCopyJump: true });
    var points = data.points || [];
    // The view first: layers added to a map without one fail.
    var all = points.map(function (point) { return point.at; });
    (data.lines || []).forEach(function (line) { all.push(line.from); all.push(line.to); });
    if (all.length === 0) {
      map.setView([35, 105], 4);
    } else if (all.length === 1) {
      map.setView(all[0], 15);
    } else {
      map.fitBounds(L.latLngBounds(all).pad(0.15), { maxZoom: 17 });
    }
    map.createPane('outlines');
    map.getPane('outlines').style.zIndex = 250;
    // The page's own positions above the clusters (the marker pane, 600), which would hide them.
    map.createPane('singles');
    map.getPane('singles').style.zIndex = 650;

    var outlines = L.layerGroup();
    var credits = [];
    fetch('/console/outlines.json', { credentials: 'same-origin' })
      .then(function (answer) { return answer.json(); })
      .then(function (collection) {
        L.geoJSON(collection, {
          pane: 'outlines', interactive: false,
          style: function (feature) {
            return { color: '#8c8c8c', weight: 0.8, fillColor: regionFills[feature.properties.region] || '#e2e2e2', fillOpacity: data.tiles ? 0.35 : 1 };
          }
        }).addTo(outlines);
        credits.push('Region outlines: ' + collection.boundaryVersion);
        attribution.textContent = credits.join(' · ');
      })
      .catch(function () { element.classList.add('outlines-failed'); });

    if (data.tiles) {
      L.tileLayer(data.tiles.url, { maxZoom: 19 }).addTo(map);
      credits.push(data.tiles.attribution);
      L.control.layers(null, { 'Region outlines': outlines }).addTo(map);
    } else {
      outlines.addTo(map);
    }
    var attribution = document.createElement('div');
    attribution.className = 'map-credits';
    attribution.textContent = credits.join(' · ');
    var Credits = L.Control.extend({ options: { position: 'bottomright' }, onAdd: function () { return attribution; } });
    map.addControl(new Credits());

    var markers = L.layerGroup();
    // Positions that stay single whatever the count: what the page is about.
    var alwaysSingle = {};
    (data.single || []).forEach(function (role) { alwaysSingle[role] = true; });

    function drawSingle(point, onTop) {
      if (point.accuracy && point.accuracy > 0) {
        L.circle(point.at, {
          radius: point.accuracy, className: 'accuracy accuracy-' + (point.flag || 'none'), interactive: false,
          color: colourOf(point), weight: 1, fillOpacity: 0.05, opacity: 0.5
        }).addTo(markers);
      }
      var radius = point.role === 'address' ? 9 : (point.role === 'terminal' || point.role === 'latest' ? 7 : 5);
      L.circleMarker(point.at, {
        pane: onTop ? 'singles' : 'overlayPane',
        radius: radius, className: 'marker marker-' + (point.flag || 'none') + ' role-' + point.role,
        color: point.role === 'address' ? '#08306b' : '#ffffff', weight: point.role === 'address' ? 3 : 1.5,
        fillColor: colourOf(point), fillOpacity: 0.9
      }).bindPopup(popupOf(point)).addTo(markers);
    }

    function drawCluster(group) {
      var lat = 0, lon = 0, flags = {};
      group.forEach(function (point) {
        lat += point.at[0]; lon += point.at[1];
        flags[point.flag || 'none'] = (flags[point.flag || 'none'] || 0) + 1;
      });
      var most = Object.keys(flags).sort(function (a, b) { return flags[b] - flags[a]; })[0];
      var size = group.length < 10 ? 28 : (group.length < 100 ? 34 : 40);
      var icon = L.divIcon({
        className: 'cluster cluster-' + most, iconSize: [size, size],
        html: textElement(String(group.length), 'cluster-count')
      });
      var bounds = L.latLngBounds(group.map(function (point) { return point.at; }));
      L.marker([lat / group.length, lon / group.length], { icon: icon, keyboard: true, title: group.length + ' positions' })
        .on('click', function () {
          if (bounds.getNorthEast().equals(bounds.getSouthWest())) { map.setView(bounds.getCenter(), map.getMaxZoom()); }
          else { map.fitBounds(bounds.pad(0.2)); }
        })
        .addTo(markers);
    }

    function render() {
      markers.clearLayers();
      var zoom = map.getZoom();
      var cluster = points.length > clusterAbove && zoom < 18;
      var cells = {};
      var order = [];
      points.forEach(function (point) {
        if (!cluster || alwaysSingle[point.role]) { return; }
        var pixel = map.project(point.at, zoom);
        var key = Math.floor(pixel.x / cellPixels) + ':' + Math.floor(pixel.y / cellPixels);
        if (!cells[key]) { cells[key] = []; order.push(key); }
        cells[key].push(point);
      });
      order.forEach(function (key) {
        var group = cells[key];
        if (group.length === 1) { drawSingle(group[0]); } else { drawCluster(group); }
      });
      // The page's own positions last, over the rest.
      points.forEach(function (point) {
        if (!cluster || alwaysSingle[point.role]) { drawSingle(point, cluster); }
      });
    }

    map.on('zoomend', render);
    markers.addTo(map);
    (data.lines || []).forEach(function (line) {
      L.polyline([line.from, line.to], { className: 'line', color: '#252525', weight: 2, dashArray: '6 4' })
        .bindTooltip(textElement(line.label, 'line-label'), { sticky: true })
        .addTo(map);
    });
    render();
    element.setAttribute('data-drawn', String(points.length));
  }

  function start() {
    setUpTimeZonePicker();
    drawMap();
  }

  if (document.readyState === 'loading') { document.addEventListener('DOMContentLoaded', start); } else { start(); }
})();
"""#
}
